package dev.kubeproxy.cluster;

import dev.kubeproxy.logging.Log;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kubeproxy.model.objects.ObjectDecoder;
import dev.kubeproxy.model.objects.ClusterObject;
import dev.kubeproxy.model.objects.ObjectMeta;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the cluster objects kube-proxy uses from one YAML or JSON file (namespaced objects without
 * a namespace are in "default", as kubectl would create them): several YAML documents
 * (or concatenated JSON objects) per file, and "kind: List" documents. Other kinds are skipped
 * with a log line. A syntax error fails the whole file with its position, so the caller can keep
 * the file's last good content; an object that does not match its schema (e.g. {@code port: "eighty"})
 * is left out and handed to the caller's {@link BadObject}, and the file's other objects still count.
 */
final class ManifestReader {
  private static final JsonFactory YAML = new YAMLFactory();
  private static final JsonFactory JSON = new JsonFactory();

  /** apiVersion + " " + kind → its reader. */
  private static final Map<String, ObjectDecoder.Reader<? extends ClusterObject>> READERS = Map.of(
      "v1 Service", ObjectDecoder.SERVICE,
      "discovery.k8s.io/v1 EndpointSlice", ObjectDecoder.ENDPOINT_SLICE,
      "v1 Node", ObjectDecoder.NODE,
      "networking.k8s.io/v1beta1 ServiceCIDR", ObjectDecoder.SERVICE_CIDR,
      "networking.k8s.io/v1 ServiceCIDR", ObjectDecoder.SERVICE_CIDR);

  /** A file that cannot be used, with where the problem is. */
  static final class ManifestException extends Exception {
    ManifestException(Path file, long line, long column, String message) {
      super(file + (line > 0 ? ":" + line + ":" + column : "") + ": " + message);
    }
  }

  /** Told about each object left out because it does not decode into its model. */
  interface BadObject {
    void report(String kind, String namespace, String name, String problem);
  }

  private ManifestReader() {}

  static boolean isManifest(Path file) {
    String name = file.getFileName().toString();
    return !name.startsWith(".") && (name.endsWith(".yaml") || name.endsWith(".yml") || name.endsWith(".json"));
  }

  static List<ClusterObject> read(Path file) throws ManifestException {
    return read(file, (Set<String>) null);
  }

  /**
   * Only the documents of these kinds (null: all) are decoded; the others are skipped
   * unlogged. The node lookup at start reads the Node this way, not every Service and EndpointSlice.
   * An object that does not decode fails the read.
   */
  static List<ClusterObject> read(Path file, Set<String> kinds) throws ManifestException {
    return read(file, kinds, (kind, namespace, name, problem) -> {
      throw new IllegalArgumentException(problem);
    });
  }

  static List<ClusterObject> read(Path file, BadObject bad) throws ManifestException {
    return read(file, null, bad);
  }

  /** Objects of these kinds (null: all); one that does not decode is reported to bad and left out. */
  static List<ClusterObject> read(Path file, Set<String> kinds, BadObject bad) throws ManifestException {
    JsonFactory factory = file.getFileName().toString().endsWith(".json") ? JSON : YAML;
    List<ClusterObject> out = new ArrayList<>();
    try (JsonParser parser = factory.createParser(file.toFile())) {
      int index = 0;
      for (JsonToken t = parser.nextToken(); t != null; t = parser.nextToken()) {
        Document doc = new Document(file, parser.currentTokenLocation(), ++index, kinds, out, bad);
        if (t != JsonToken.VALUE_NULL) { // an empty YAML document
          doc.read(parser);
        }
      }
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      // YAML errors come with quoted source lines and carets: keep the sentences only, on one line.
      String problem = String.join("; ", e.getOriginalMessage().lines()
          .filter(l -> !l.isBlank() && !l.startsWith(" ")).toList());
      throw new ManifestException(file, at == null ? 0 : at.getLineNr(), at == null ? 0 : at.getColumnNr(), problem);
    } catch (IOException | RuntimeException e) {
      throw new ManifestException(file, 0, 0, "cannot read: " + e.getMessage());
    }
    return out;
  }

  /** One document of a file (a "kind: List" document's items share its position). */
  private record Document(Path file, JsonLocation at, int index, Set<String> kinds, List<ClusterObject> out,
                          BadObject bad) {
    /**
     * Reads the object at the parser, which ends on its END_OBJECT. Its apiVersion and kind come
     * first in every manifest kubectl or an API server writes: the rest is then decoded straight
     * from the parser. When another field comes before them, the object is read into a tree first.
     */
    void read(JsonParser parser) throws IOException, ManifestException {
      if (parser.currentToken() != JsonToken.START_OBJECT) {
        throw problem("document " + index + " is not an object");
      }
      String apiVersion = null;
      String kind = null;
      JsonToken t = parser.nextToken();
      if (t == JsonToken.END_OBJECT) {
        return; // an empty document
      }
      while (t == JsonToken.FIELD_NAME && (apiVersion == null || kind == null)) {
        String field = parser.currentName();
        if (!field.equals("apiVersion") && !field.equals("kind")) {
          break;
        }
        parser.nextToken();
        String value = parser.getValueAsString("");
        parser.skipChildren();
        if (field.equals("apiVersion")) {
          apiVersion = value;
        } else {
          kind = value;
        }
        t = parser.nextToken();
      }
      if (t == JsonToken.FIELD_NAME && (apiVersion == null || kind == null)) {
        readReordered(parser, apiVersion, kind);
        return;
      }
      if (apiVersion == null || apiVersion.isEmpty() || kind == null || kind.isEmpty()) {
        throw problem("document " + index + " has no apiVersion or kind");
      }
      if (kind.equals("List")) {
        readItems(parser);
      } else if (kinds != null && !kinds.contains(kind)) {
        skipFields(parser);
      } else {
        readObject(parser, apiVersion, kind);
      }
    }

    /** The rest of an object whose apiVersion or kind comes after another field, as a tree with them first. */
    private void readReordered(JsonParser parser, String apiVersion, String kind) throws IOException, ManifestException {
      ObjectNode rest = ItemDecoder.JSON.readTree(parser);
      ObjectNode ordered = ItemDecoder.JSON.createObjectNode();
      JsonNode version = rest.remove("apiVersion");
      JsonNode kindNode = rest.remove("kind");
      ordered.put("apiVersion", version != null ? version.asText("") : apiVersion);
      ordered.put("kind", kindNode != null ? kindNode.asText("") : kind);
      ordered.setAll(rest);
      try (JsonParser tree = ordered.traverse()) {
        tree.nextToken();
        read(tree);
      }
    }

    /** A "kind: List" document: each of its items is a document at the List's position. */
    private void readItems(JsonParser parser) throws IOException, ManifestException {
      for (JsonToken t = parser.currentToken(); t == JsonToken.FIELD_NAME; t = parser.nextToken()) {
        String field = parser.currentName();
        if (parser.nextToken() == JsonToken.START_ARRAY && field.equals("items")) {
          while (parser.nextToken() != JsonToken.END_ARRAY) {
            read(parser);
          }
        } else {
          parser.skipChildren();
        }
      }
    }

    private void readObject(JsonParser parser, String apiVersion, String kind) throws IOException, ManifestException {
      ObjectDecoder.Reader<? extends ClusterObject> reader = READERS.get(apiVersion + " " + kind);
      if (reader == null) {
        Log.info("Skipping an object kube-proxy does not read (only Services, EndpointSlices, Nodes and ServiceCIDRs)",
            "file", file + ":" + at.getLineNr(), "apiVersion", apiVersion, "kind", kind);
        skipFields(parser);
        return;
      }
      ObjectDecoder.Decoded<? extends ClusterObject> decoded = reader.read(parser, "default");
      ObjectMeta meta = decoded.object().metadata();
      if (decoded.problem() != null) {
        bad.report(kind, meta.namespace(), meta.name(), file + ":" + at.getLineNr() + ":" + at.getColumnNr() + ": "
            + kind + " does not match the " + apiVersion + " schema: " + decoded.problem());
      } else if (meta.name().isEmpty()) {
        throw problem("document " + index + " (" + kind + ") has no metadata.name");
      } else {
        out.add(decoded.object());
      }
    }

    /** Passes over the rest of the object, the parser standing on a FIELD_NAME or the END_OBJECT. */
    private static void skipFields(JsonParser parser) throws IOException {
      for (JsonToken t = parser.currentToken(); t == JsonToken.FIELD_NAME; t = parser.nextToken()) {
        parser.nextToken();
        parser.skipChildren();
      }
    }

    private ManifestException problem(String message) {
      return new ManifestException(file, at.getLineNr(), at.getColumnNr(), message);
    }
  }
}
