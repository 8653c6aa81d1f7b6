package dev.kubeproxy.cluster;

import dev.kubeproxy.logging.Log;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kubeproxy.cluster.objects.ObjectDecoder;
import dev.kubeproxy.cluster.objects.ClusterObject;
import java.io.IOException;
import java.nio.file.Files;
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
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON_MAPPER = new ObjectMapper();

  /** apiVersion + " " + kind → its reader. */
  private static final Map<String, ObjectDecoder.Reader<? extends ClusterObject>> READERS = Map.of(
      "v1 Service", ObjectDecoder::service,
      "discovery.k8s.io/v1 EndpointSlice", ObjectDecoder::endpointSlice,
      "v1 Node", ObjectDecoder::node,
      "networking.k8s.io/v1beta1 ServiceCIDR", ObjectDecoder::serviceCidr,
      "networking.k8s.io/v1 ServiceCIDR", ObjectDecoder::serviceCidr);

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
    ObjectMapper mapper = file.getFileName().toString().endsWith(".json") ? JSON_MAPPER : YAML;
    List<ClusterObject> out = new ArrayList<>();
    try (MappingIterator<JsonNode> docs = mapper.readerFor(JsonNode.class).readValues(Files.newBufferedReader(file))) {
      int index = 0;
      while (docs.hasNextValue()) {
        JsonParser parser = docs.getParser();
        JsonLocation start = parser.currentTokenLocation();
        JsonNode doc = docs.nextValue();
        index++;
        if (doc == null || doc.isNull() || doc.isMissingNode() || (doc.isObject() && doc.isEmpty())) {
          continue;
        }
        addDocument(file, start, index, doc, kinds, out, bad);
      }
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      // YAML errors come with quoted source lines and carets: keep the sentences only, on one line.
      String problem = String.join("; ", e.getOriginalMessage().lines()
          .filter(l -> !l.isBlank() && !l.startsWith(" ")).toList());
      throw new ManifestException(file, at == null ? 0 : at.getLineNr(), at == null ? 0 : at.getColumnNr(), problem);
    } catch (IOException | RuntimeException e) {
      if (e.getCause() instanceof JsonProcessingException jpe && jpe.getLocation() != null) {
        throw new ManifestException(file, jpe.getLocation().getLineNr(), jpe.getLocation().getColumnNr(), jpe.getOriginalMessage());
      }
      throw new ManifestException(file, 0, 0, "cannot read: " + e.getMessage());
    }
    return out;
  }

  private static void addDocument(Path file, JsonLocation at, int index, JsonNode doc, Set<String> kinds,
      List<ClusterObject> out, BadObject bad) throws ManifestException {
    long line = at.getLineNr();
    long col = at.getColumnNr();
    if (!doc.isObject()) {
      throw new ManifestException(file, line, col, "document " + index + " is not an object");
    }
    String apiVersion = doc.path("apiVersion").asText("");
    String kind = doc.path("kind").asText("");
    if (apiVersion.isEmpty() || kind.isEmpty()) {
      throw new ManifestException(file, line, col, "document " + index + " has no apiVersion or kind");
    }
    if (kind.equals("List")) {
      for (JsonNode item : doc.path("items")) {
        addDocument(file, at, index, item, kinds, out, bad);
      }
      return;
    }
    if (kinds != null && !kinds.contains(kind)) {
      return;
    }
    ObjectDecoder.Reader<? extends ClusterObject> reader = READERS.get(apiVersion + " " + kind);
    if (reader == null) {
      Log.info("Skipping an object kube-proxy does not read (only Services, EndpointSlices, Nodes and ServiceCIDRs)",
          "file", file + ":" + line, "apiVersion", apiVersion, "kind", kind);
      return;
    }
    String name = doc.path("metadata").path("name").asText("");
    if (name.isEmpty()) {
      throw new ManifestException(file, line, col, "document " + index + " (" + kind + ") has no metadata.name");
    }
    ClusterObject object;
    try {
      object = reader.read(doc, "default");
    } catch (ObjectDecoder.DecodeException e) {
      bad.report(kind, doc.path("metadata").path("namespace").asText(""), name, file + ":" + line + ":" + col + ": "
          + kind + " does not match the " + apiVersion + " schema: " + e.getMessage());
      return;
    }
    out.add(object);
  }
}
