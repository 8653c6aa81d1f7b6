package dev.kubeproxy.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.vertx.core.json.JsonObject;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * A configuration file parsed into a JSON tree, the way upstream's decoder sees it: YAML goes
 * through sigs.k8s.io/yaml's YAML-to-JSON step (go-yaml: aliases and merge keys resolved, expansion
 * bounded, duplicate keys reported), JSON through encoding/json. It remembers where each value
 * starts, so that errors can name {@code file:line:column}, and which keys repeat (strict decoding).
 */
final class ConfigDocument {

  final String source;
  final boolean json;
  final JsonNode root;
  final List<String> duplicates;
  private final Map<String, Position> positions;

  /** A 1-based line and column. */
  record Position(int line, int column) {}

  ConfigDocument(String source, boolean json, JsonNode root, List<String> duplicates,
      Map<String, Position> positions) {
    this.source = source;
    this.json = json;
    this.root = root;
    this.duplicates = duplicates;
    this.positions = positions;
  }

  /** {@code "file:line:column: "} for the value at this dotted path, or {@code "file: "}. */
  String at(String path) {
    return prefix(source, positions.get(path));
  }

  static String prefix(String source, Position p) {
    return p == null ? source + ": " : source + ":" + p.line() + ":" + p.column() + ": ";
  }

  /**
   * This reading's positions and strict errors over the values another reader took from the same
   * bytes ({@code read}: vertx-config-yaml's document), merged by {@link ConfigValueOverlay}.
   */
  ConfigDocument withValues(JsonObject read) {
    return new ConfigDocument(source, json, ConfigValueOverlay.overlay(read, root), duplicates, positions);
  }

  /**
   * Parses the file's content.
   *
   * @throws ConfigDecodeException for an empty or malformed document, with its position
   */
  static ConfigDocument parse(String source, byte[] data) throws ConfigDecodeException {
    String text = new String(data, StandardCharsets.UTF_8);
    boolean json = text.stripLeading().startsWith("{");
    return json ? new ConfigJsonReader(source).read(text) : new ConfigYamlReader(source).read(text);
  }

  static ConfigDecodeException empty(String source) {
    return new ConfigDecodeException(source + ": the file is empty; expected a KubeProxyConfiguration");
  }

  static String child(String path, String name) {
    return path.isEmpty() ? name : path + "." + name;
  }

  /** The smallest integer node for the value, so that binding sees an int, a long or a big integer. */
  static JsonNode integerNode(BigInteger i) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    if (i.bitLength() < 32) {
      return f.numberNode(i.intValue());
    }
    return i.bitLength() < 64 ? f.numberNode(i.longValue()) : f.numberNode(i);
  }

}
