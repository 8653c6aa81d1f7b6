package dev.kubeproxy.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/**
 * Merges the values vertx-config's retriever read ({@code yaml} format: SnakeYAML) into the tree of
 * {@link ConfigDocument}'s go-yaml-compatible reading of the same bytes. The retriever's maps, lists
 * and scalars are used where they agree with that reading; a scalar that SnakeYAML's YAML 1.1
 * constructor builds otherwise than go-yaml (a date becomes a timestamp, {@code 1:30} the sexagesimal
 * 90, {@code .inf} a double) keeps the reading's value, as does a value the retriever lacks.
 */
final class ConfigValueOverlay {
  private ConfigValueOverlay() {}

  /** The merged tree: {@code own}'s shape, with {@code read}'s agreeing values. */
  static JsonNode overlay(JsonObject read, JsonNode own) {
    return merge(read, own);
  }

  private static JsonNode merge(Object read, JsonNode own) {
    Object r = read instanceof JsonObject o ? o.getMap() : read instanceof JsonArray a ? a.getList() : read;
    JsonNodeFactory f = JsonNodeFactory.instance;
    if (own.isObject() && r instanceof Map<?, ?> m) {
      ObjectNode obj = f.objectNode();
      own.properties().forEach(e -> obj.set(e.getKey(), merge(m.get(e.getKey()), e.getValue())));
      return obj;
    }
    if (own.isArray() && r instanceof List<?> l && l.size() == own.size()) {
      ArrayNode arr = f.arrayNode();
      for (int i = 0; i < l.size(); i++) {
        arr.add(merge(l.get(i), own.get(i)));
      }
      return arr;
    }
    JsonNode scalar = scalar(r);
    return scalar != null && sameScalar(scalar, own) ? scalar : own;
  }

  /** A scalar of vertx-config-yaml's document as a tree node; null for what JSON has no scalar for (a timestamp). */
  private static JsonNode scalar(Object v) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    if (v == null) {
      return f.nullNode();
    }
    if (v instanceof String s) {
      return f.textNode(s);
    }
    if (v instanceof Boolean b) {
      return f.booleanNode(b);
    }
    if (v instanceof Integer || v instanceof Long || v instanceof BigInteger) {
      return ConfigDocument.integerNode(new BigInteger(v.toString()));
    }
    if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      return Double.isFinite(d) ? f.numberNode(BigDecimal.valueOf(d)) : null;
    }
    return null;
  }

  private static boolean sameScalar(JsonNode a, JsonNode b) {
    if (a.isNumber() && b.isNumber()) {
      return a.isIntegralNumber() == b.isIntegralNumber() && a.decimalValue().compareTo(b.decimalValue()) == 0;
    }
    return a.getNodeType() == b.getNodeType() && a.equals(b);
  }
}
