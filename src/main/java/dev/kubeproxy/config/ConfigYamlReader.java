package dev.kubeproxy.config;

import static dev.kubeproxy.config.ConfigDocument.child;
import static dev.kubeproxy.config.ConfigDocument.empty;
import static dev.kubeproxy.config.ConfigDocument.integerNode;
import static dev.kubeproxy.config.ConfigDocument.prefix;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kubeproxy.config.ConfigDocument.Position;
import dev.kubeproxy.gotext.GoQuote;
import java.io.StringReader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * go-yaml's view of a YAML file: SnakeYAML composes the node graph (an alias is the anchored node
 * itself), and this walk expands it into a tree. As in go-yaml v2 (decoder.unmarshal, alias,
 * merge), every node visited counts as a decode step, those reached through an alias also as
 * alias steps, and too large a share of alias steps stops the walk with "document contains
 * excessive aliasing": a billion-laughs file fails after a few thousand steps.
 */
final class ConfigYamlReader {
  // go-yaml v2 decode.go: the share of decode steps that may come from alias expansion
  private static final int ALIAS_RATIO_RANGE_LOW = 400_000;
  private static final int ALIAS_RATIO_RANGE_HIGH = 4_000_000;
  private static final Pattern YAML_INT = Pattern.compile("[-+]?(0b[01_]+|0x[0-9a-fA-F_]+|0o?[0-7_]+|[0-9][0-9_]*)");

  private final String source;
  private final Map<String, Position> positions = new HashMap<>();
  private final List<String> duplicates = new ArrayList<>();
  private final Set<Node> visited = Collections.newSetFromMap(new IdentityHashMap<>());
  private final Set<Node> expanding = Collections.newSetFromMap(new IdentityHashMap<>());
  private long decodeCount;
  private long aliasCount;
  private int aliasDepth;

  ConfigYamlReader(String source) {
    this.source = source;
  }

  ConfigDocument read(String text) throws ConfigDecodeException {
    LoaderOptions options = new LoaderOptions();
    // the expansion bound below is go-yaml's; SnakeYAML's own count of collection aliases is not
    options.setMaxAliasesForCollections(Integer.MAX_VALUE);
    options.setAllowDuplicateKeys(true);
    Node top;
    try {
      // go-yaml's Unmarshal reads the first document of the stream and ignores the others
      Iterator<Node> documents = new Yaml(options).composeAll(new StringReader(text)).iterator();
      top = documents.hasNext() ? documents.next() : null;
    } catch (MarkedYAMLException e) {
      throw new ConfigDecodeException(prefix(source, position(e.getProblemMark())) + "yaml: " + problem(e));
    } catch (YAMLException e) {
      throw new ConfigDecodeException(source + ": yaml: " + e.getMessage());
    }
    if (top == null) {
      throw empty(source);
    }
    try {
      JsonNode root = value(top, "", null);
      return new ConfigDocument(source, false, root, duplicates, positions);
    } catch (Failure f) {
      throw new ConfigDecodeException(prefix(source, f.where) + "yaml: " + f.getMessage());
    }
  }

  private static String problem(MarkedYAMLException e) {
    String problem = e.getProblem() == null ? e.getMessage() : e.getProblem();
    if (problem.startsWith("found undefined alias ")) {
      // go-yaml's words
      return "unknown anchor '" + problem.substring("found undefined alias ".length()) + "' referenced";
    }
    return e.getContext() == null ? problem : e.getContext() + ": " + problem;
  }

  private static Position position(Mark m) {
    return m == null ? null : new Position(m.getLine() + 1, m.getColumn() + 1);
  }

  /** A walk step that cannot go on; {@code where} is the node it stopped at. */
  private static final class Failure extends RuntimeException {
    final Position where;

    Failure(String message, Position where) {
      super(message, null, false, false);
      this.where = where;
    }
  }

  /**
   * The tree for node {@code n} at {@code path}. {@code aliasAt} is where the alias that led here
   * is written, so that values copied by an alias are reported at the alias.
   */
  private JsonNode value(Node n, String path, Position aliasAt) {
    Position here = aliasAt != null ? aliasAt : position(n.getStartMark());
    positions.putIfAbsent(path, here);
    boolean alias = !visited.add(n);
    if (alias) {
      if (expanding.contains(n)) {
        throw new Failure("anchor '" + n.getAnchor() + "' value contains itself", here);
      }
      aliasDepth++;
    }
    expanding.add(n);
    try {
      countStep(here);
      return switch (n.getNodeId()) {
        case mapping -> mapping((MappingNode) n, path, aliasAt);
        case sequence -> sequence((SequenceNode) n, path, aliasAt);
        default -> scalar((ScalarNode) n, here);
      };
    } finally {
      expanding.remove(n);
      if (alias) {
        aliasDepth--;
      }
    }
  }

  private void countStep(Position here) {
    decodeCount++;
    if (aliasDepth > 0) {
      aliasCount++;
    }
    if (aliasCount > 100 && decodeCount > 1000
        && (double) aliasCount / decodeCount > allowedAliasRatio(decodeCount)) {
      throw new Failure("document contains excessive aliasing", here);
    }
  }

  private static double allowedAliasRatio(long decodeCount) {
    if (decodeCount <= ALIAS_RATIO_RANGE_LOW) {
      return 0.99;
    }
    if (decodeCount >= ALIAS_RATIO_RANGE_HIGH) {
      return 0.10;
    }
    return 0.99 - 0.89 * ((double) (decodeCount - ALIAS_RATIO_RANGE_LOW)
        / (ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW));
  }

  private ObjectNode mapping(MappingNode n, String path, Position aliasAt) {
    ObjectNode obj = JsonNodeFactory.instance.objectNode();
    fill(obj, n, path, aliasAt);
    return obj;
  }

  /** Puts the mapping's entries into {@code obj}, in document order (go-yaml v2: the last one wins). */
  private void fill(ObjectNode obj, MappingNode n, String path, Position aliasAt) {
    for (NodeTuple t : n.getValue()) {
      Node keyNode = t.getKeyNode();
      Node valueNode = t.getValueNode();
      if (!(keyNode instanceof ScalarNode key)) {
        throw new Failure("a mapping key must be a string, not a " + keyNode.getNodeId(),
            position(keyNode.getStartMark()));
      }
      if (keyNode.getTag().equals(Tag.MERGE)) {
        merge(obj, valueNode, path, aliasAt);
        continue;
      }
      String name = key.getValue();
      String child = child(path, name);
      if (obj.has(name)) {
        positions.remove(child); // the repeated key's value is the one reported from now on
      }
      Position valueAt = aliasAt != null ? aliasAt : position(valueNode.getStartMark());
      JsonNode v = value(valueNode, child, aliasAt);
      put(obj, name, child, v, valueAt);
    }
  }

  private void put(ObjectNode obj, String name, String child, JsonNode v, Position valueAt) {
    if (obj.has(name)) {
      // go-yaml v2 strict: "line N: key "x" already set in map" (the line of the value)
      duplicates.add("line " + valueAt.line() + ": key " + GoQuote.quote(name) + " already set in map");
    }
    obj.set(name, v);
  }

  /** go-yaml v2 decoder.merge: a mapping, an alias of one, or a list of them (earlier ones win). */
  private void merge(ObjectNode obj, Node value, String path, Position aliasAt) {
    Position here = aliasAt != null ? aliasAt : position(value.getStartMark());
    List<Node> maps = new ArrayList<>();
    if (value instanceof MappingNode) {
      maps.add(value);
    } else if (value instanceof SequenceNode seq) {
      maps.addAll(seq.getValue());
      Collections.reverse(maps);
    } else {
      throw new Failure("map merge requires map or sequence of maps as the value", here);
    }
    for (Node m : maps) {
      if (!(m instanceof MappingNode)) {
        throw new Failure("map merge requires map or sequence of maps as the value", here);
      }
      JsonNode merged = value(m, path, aliasAt);
      for (Map.Entry<String, JsonNode> e : merged.properties()) {
        put(obj, e.getKey(), child(path, e.getKey()), e.getValue(), here);
      }
    }
  }

  private ArrayNode sequence(SequenceNode n, String path, Position aliasAt) {
    ArrayNode arr = JsonNodeFactory.instance.arrayNode();
    int i = 0;
    for (Node item : n.getValue()) {
      arr.add(value(item, path + "[" + i++ + "]", aliasAt));
    }
    return arr;
  }

  /** A scalar typed by the YAML 1.1 resolver, as go-yaml v2 types it for an interface{} value. */
  private static JsonNode scalar(ScalarNode n, Position here) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    String v = n.getValue();
    Tag tag = n.getTag();
    if (tag.equals(Tag.NULL)) {
      return f.nullNode();
    }
    if (tag.equals(Tag.BOOL)) {
      String lower = v.toLowerCase(Locale.ROOT);
      return f.booleanNode(lower.equals("true") || lower.equals("yes") || lower.equals("on"));
    }
    if (tag.equals(Tag.INT) && YAML_INT.matcher(v).matches()) {
      BigInteger i = integer(v);
      if (i != null) {
        return integerNode(i);
      }
    }
    if (tag.equals(Tag.FLOAT)) {
      try {
        return f.numberNode(new BigDecimal(v.replace("_", "")));
      } catch (NumberFormatException e) {
        // .inf, .nan: not representable in JSON, kept as text
      }
    }
    // strings, timestamps (go-yaml keeps them as text for an interface{}), binary, unknown tags
    return f.textNode(v);
  }

  private static BigInteger integer(String text) {
    String s = text.replace("_", "");
    boolean neg = s.startsWith("-");
    if (s.startsWith("-") || s.startsWith("+")) {
      s = s.substring(1);
    }
    BigInteger i;
    try {
      if (s.startsWith("0b")) {
        i = new BigInteger(s.substring(2), 2);
      } else if (s.startsWith("0x")) {
        i = new BigInteger(s.substring(2), 16);
      } else if (s.startsWith("0o")) {
        i = new BigInteger(s.substring(2), 8);
      } else if (s.length() > 1 && s.startsWith("0")) {
        i = new BigInteger(s.substring(1), 8);
      } else {
        i = new BigInteger(s);
      }
    } catch (NumberFormatException e) {
      return null;
    }
    return neg ? i.negate() : i;
  }
}
