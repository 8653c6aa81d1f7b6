package dev.kubeproxy.config;

import static dev.kubeproxy.config.ConfigDocument.child;
import static dev.kubeproxy.config.ConfigDocument.empty;
import static dev.kubeproxy.config.ConfigDocument.integerNode;
import static dev.kubeproxy.config.ConfigDocument.prefix;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kubeproxy.config.ConfigDocument.Position;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** encoding/json's view of a JSON file, through Jackson's streaming parser. */
final class ConfigJsonReader {
  private final String source;
  private final Map<String, Position> positions = new HashMap<>();
  private final List<String> duplicates = new ArrayList<>();

  ConfigJsonReader(String source) {
    this.source = source;
  }

  ConfigDocument read(String text) throws ConfigDecodeException {
    try (JsonParser p = new JsonFactory().createParser(text)) {
      if (p.nextToken() == null) {
        throw empty(source);
      }
      JsonNode root = value(p, "");
      return new ConfigDocument(source, true, root, duplicates, positions);
    } catch (JsonProcessingException e) {
      JsonLocation loc = e.getLocation();
      Position where = loc == null || loc.getLineNr() < 1 ? null : new Position(loc.getLineNr(), loc.getColumnNr());
      throw new ConfigDecodeException(prefix(source, where) + "json: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new ConfigDecodeException(source + ": " + e.getMessage());
    }
  }

  private JsonNode value(JsonParser p, String path) throws IOException {
    JsonLocation loc = p.currentTokenLocation();
    positions.putIfAbsent(path, new Position(loc.getLineNr(), loc.getColumnNr()));
    JsonNodeFactory f = JsonNodeFactory.instance;
    JsonToken t = p.currentToken();
    switch (t) {
      case START_OBJECT: {
        ObjectNode obj = f.objectNode();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          p.nextToken();
          String child = child(path, name);
          if (obj.has(name)) {
            duplicates.add("duplicate field \"" + child + "\"");
            positions.remove(child);
          }
          obj.set(name, value(p, child));
        }
        return obj;
      }
      case START_ARRAY: {
        ArrayNode arr = f.arrayNode();
        int i = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
          arr.add(value(p, path + "[" + i++ + "]"));
        }
        return arr;
      }
      case VALUE_STRING:
        return f.textNode(p.getText());
      case VALUE_NUMBER_INT:
        return integerNode(p.getBigIntegerValue());
      case VALUE_NUMBER_FLOAT:
        return f.numberNode(p.getDecimalValue());
      case VALUE_TRUE:
        return f.booleanNode(true);
      case VALUE_FALSE:
        return f.booleanNode(false);
      case VALUE_NULL:
        return f.nullNode();
      default:
        throw new JsonProcessingException("unexpected " + t, p.currentTokenLocation()) {};
    }
  }
}
