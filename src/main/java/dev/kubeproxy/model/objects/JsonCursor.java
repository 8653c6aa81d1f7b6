package dev.kubeproxy.model.objects;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One object's JSON (or YAML) tokens read straight from the parser, as Go's encoding/json reads
 * them into a struct, with no tree in between: a field kube-proxy does not know is skipped, JSON
 * null is an absent value, and a known field of the wrong type is left unset and skipped while the
 * rest of the object is still read. The first such field is kept as the object's problem, named
 * by its path ("spec.ports[1].port"), as Go reports the earliest type error.
 *
 * <p>Each method reads the value the parser stands on and leaves the parser on that value's last
 * token.
 */
final class JsonCursor {
  private static final int MAX_PORT = 65_535;
  private static final Map<Integer, Integer> PORTS = new ConcurrentHashMap<>();

  /** Reads one value at the parser. */
  @FunctionalInterface
  interface Value<V> {
    V read() throws IOException;
  }

  private final JsonParser parser;
  private final JsonStreamContext root;
  private String problem;

  /** A cursor over the object the parser stands in (on its START_OBJECT, or on a FIELD_NAME inside it). */
  JsonCursor(JsonParser parser) {
    this.parser = parser;
    this.root = parser.getParsingContext();
  }

  /** The first field of the wrong type, with its path and value; null when there was none. */
  String problem() {
    return problem;
  }

  /**
   * The first field of the object at the parser, the parser then on that field's value; null for
   * an empty object, JSON null, or the END_OBJECT of an object whose fields were read elsewhere.
   * The parser may stand on a FIELD_NAME: the fields before it were read by the caller.
   */
  String firstField() throws IOException {
    JsonToken t = parser.currentToken();
    if (t == JsonToken.FIELD_NAME) {
      String name = parser.currentName();
      parser.nextToken();
      return name;
    }
    if (t == JsonToken.START_OBJECT) {
      return nextField();
    }
    if (t != JsonToken.VALUE_NULL && t != JsonToken.END_OBJECT) {
      wrongType("an object");
    }
    return null;
  }

  /** The object's next field, the parser then on its value; null at the object's end. */
  String nextField() throws IOException {
    if (parser.nextToken() != JsonToken.FIELD_NAME) {
      return null;
    }
    String name = parser.currentName();
    parser.nextToken();
    return name;
  }

  /** Passes over the value, whatever it is. */
  void skip() throws IOException {
    parser.skipChildren();
  }

  /** The value of one field of the object at the parser (its other fields skipped); null when absent. */
  <V> V field(String name, Value<V> value) throws IOException {
    V out = null;
    for (String f = firstField(); f != null; f = nextField()) {
      if (f.equals(name)) {
        out = value.read();
      } else {
        skip();
      }
    }
    return out;
  }

  String text(boolean intern) throws IOException {
    JsonToken t = parser.currentToken();
    if (t == JsonToken.VALUE_STRING) {
      String s = parser.getText();
      return intern ? s.intern() : s;
    }
    if (t != JsonToken.VALUE_NULL) {
      wrongType("a string");
    }
    return null;
  }

  /** A string where Go's zero value "" stands for null or absent (list elements, required names). */
  String textOrEmpty(boolean intern) throws IOException {
    String s = text(intern);
    return s == null ? "" : s;
  }

  Integer integer() throws IOException {
    JsonToken t = parser.currentToken();
    if (t == JsonToken.VALUE_NUMBER_INT && parser.getNumberType() == JsonParser.NumberType.INT) {
      return parser.getIntValue();
    }
    if (t != JsonToken.VALUE_NULL) {
      wrongType("a 32-bit integer");
    }
    return null;
  }

  /**
   * A port number, the same Integer for the same port in every object (as texts are interned):
   * a cluster's Services and slices repeat a few ports many times. Only valid ports are shared, so
   * the table holds at most one entry per port whatever an object carries.
   */
  Integer port() throws IOException {
    Integer p = integer();
    return p == null || p < 0 || p > MAX_PORT ? p : PORTS.computeIfAbsent(p, k -> k);
  }

  boolean isNumber() {
    return parser.currentToken() != null && parser.currentToken().isNumeric();
  }

  Boolean bool() throws IOException {
    JsonToken t = parser.currentToken();
    if (t == JsonToken.VALUE_TRUE || t == JsonToken.VALUE_FALSE) {
      return t == JsonToken.VALUE_TRUE;
    }
    if (t != JsonToken.VALUE_NULL) {
      wrongType("a boolean");
    }
    return null;
  }

  /** Each element of an array read by element (the parser on it); empty for null or absent. */
  <V> List<V> list(Value<V> element) throws IOException {
    JsonToken t = parser.currentToken();
    if (t != JsonToken.START_ARRAY) {
      if (t != JsonToken.VALUE_NULL) {
        wrongType("an array");
      }
      return List.of();
    }
    List<V> out = new ArrayList<>();
    while (parser.nextToken() != JsonToken.END_ARRAY) {
      out.add(element.read());
    }
    return out;
  }

  /** A list of strings; a null element reads as "" (as Go decodes it). */
  List<String> texts(boolean intern) throws IOException {
    return list(() -> textOrEmpty(intern));
  }

  /**
   * An object of strings (a null value reads as ""). Every key is added to keys when that is not
   * null; only the values of keep's keys are kept (null: all), the others only type-checked, so a
   * large annotation is never materialized.
   */
  Map<String, String> stringMap(boolean intern, List<String> keys, Set<String> keep) throws IOException {
    Map<String, String> out = new HashMap<>();
    for (String f = firstField(); f != null; f = nextField()) {
      String key = f.intern();
      if (keys != null) {
        keys.add(key);
      }
      if (keep == null || keep.contains(key)) {
        out.put(key, textOrEmpty(intern));
      } else if (parser.currentToken() != JsonToken.VALUE_STRING) {
        text(false);
      }
    }
    return out;
  }

  /** Keeps the first problem, with the value's path, and passes over the value. */
  private void wrongType(String expected) throws IOException {
    if (problem == null) {
      problem = path() + ": expected " + expected + ", got " + describe();
    }
    skip();
  }

  /** The path from the object to the value at the parser, as Go names it: "spec.ports[1].port". */
  private String path() {
    JsonStreamContext c = parser.getParsingContext();
    if (parser.currentToken().isStructStart()) {
      c = c.getParent(); // the parser is already inside the value
    }
    Deque<String> segments = new ArrayDeque<>();
    for (; c != null; c = c.getParent()) {
      segments.push(c.inArray() ? "[" + c.getCurrentIndex() + "]" : "." + c.getCurrentName());
      if (c == root) {
        break;
      }
    }
    String path = String.join("", segments);
    return path.startsWith(".") ? path.substring(1) : path;
  }

  private String describe() throws IOException {
    JsonToken t = parser.currentToken();
    if (t.isStructStart()) {
      return t == JsonToken.START_ARRAY ? "an array" : "an object";
    }
    String s = t == JsonToken.VALUE_STRING
        ? "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(parser.getText())) + "\""
        : parser.getText();
    return s.length() > 40 ? s.substring(0, 40) + "..." : s;
  }
}
