package dev.kubeproxy.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The directory the agent reads with --manifests: standard Kubernetes YAML, one file per test
 * Service (the Service and its EndpointSlices as a multi-document file) plus the Node. Every
 * change replaces a whole file atomically (write aside, then rename), so the agent never reads
 * a half-written file.
 */
public final class Manifests {
  public static final String NODE_NAME = "node-1";
  public static final String REMOTE_NODE_NAME = "node-2";
  /** The zone of the agent's node (topology.kubernetes.io/zone), for the topology checks. */
  public static final String NODE_ZONE = "zone-a";

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

  private final Path dir;
  private final List<Family> families;

  public Manifests(Path dir, List<Family> families) throws IOException {
    this.dir = Files.createDirectories(dir);
    this.families = List.copyOf(families);
    write("node-" + NODE_NAME, List.of(node()));
  }

  public Path dir() {
    return dir;
  }

  /** Creates or replaces the Service and its EndpointSlices. */
  public void put(ServiceDef svc) {
    write("svc-" + svc.name(), svc.objects(families));
  }

  /** Deletes the Service and its EndpointSlices. */
  public void remove(ServiceDef svc) {
    try {
      Files.deleteIfExists(dir.resolve("svc-" + svc.name() + ".yaml"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Map<String, Object> node() {
    Map<String, Object> node = new LinkedHashMap<>();
    node.put("apiVersion", "v1");
    node.put("kind", "Node");
    node.put("metadata", Map.of("name", NODE_NAME, "labels", Map.of("kubernetes.io/hostname", NODE_NAME,
        "topology.kubernetes.io/zone", NODE_ZONE)));
    node.put("spec", Map.of("podCIDRs", families.stream().map(Family::localPodSubnet).toList()));
    List<Map<String, String>> addresses = new java.util.ArrayList<>();
    for (Family f : families) {
      addresses.add(Map.of("type", "InternalIP", "address", f.nodeIp()));
    }
    addresses.add(Map.of("type", "Hostname", "address", NODE_NAME));
    node.put("status", Map.of("addresses", addresses));
    return node;
  }

  private void write(String baseName, List<Map<String, Object>> docs) {
    StringBuilder text = new StringBuilder();
    try {
      for (Map<String, Object> doc : docs) {
        text.append("---\n").append(YAML.writeValueAsString(doc));
      }
      Path tmp = dir.resolve("." + baseName + ".tmp");
      Files.writeString(tmp, text);
      Files.move(tmp, dir.resolve(baseName + ".yaml"), StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write manifest " + baseName + " in " + dir, e);
    }
  }
}
