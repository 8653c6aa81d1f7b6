package dev.kubeproxy.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.e2e.Requirements;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docker/kube-proxy.yaml through {@code kubectl create --dry-run=client}, with no cluster: kubectl
 * maps each document's apiVersion and kind to a resource through the API's discovery documents,
 * which it reads here from its discovery cache, filled with what an API server serves for these
 * groups (a kind or apiVersion it does not serve, or a document kubectl cannot decode, fails). The
 * field-level schema check is DockerManifestTest's strict decoding into the API's typed models.
 */
@Unit
class ManifestKubectlTest {
  /** What an API server serves, for the groups the manifest uses: group/version -> kind -> resource, namespaced. */
  private static final Map<String, Map<String, String>> SERVED = Map.of(
      "v1", Map.of("ServiceAccount", "serviceaccounts:true", "ConfigMap", "configmaps:true",
          "Service", "services:true", "Secret", "secrets:true"),
      "apps/v1", Map.of("DaemonSet", "daemonsets:true", "Deployment", "deployments:true"),
      "rbac.authorization.k8s.io/v1", Map.of("ClusterRole", "clusterroles:false",
          "ClusterRoleBinding", "clusterrolebindings:false", "Role", "roles:true", "RoleBinding", "rolebindings:true"));

  @TempDir
  Path dir;

  @BeforeEach
  void discoveryCache() throws IOException {
    assumeTrue(Requirements.onPath("kubectl"), "needs kubectl (Debian package kubernetes-client; .ci/run installs it)");
    // An address that never resolves: any request kubectl made would fail the test.
    Files.writeString(dir.resolve("kubeconfig"), """
        apiVersion: v1
        kind: Config
        clusters: [{name: offline, cluster: {server: "https://offline.invalid:6443"}}]
        users: [{name: offline, user: {token: offline}}]
        contexts: [{name: offline, context: {cluster: offline, user: offline}}]
        current-context: offline
        """);
    Path cache = Files.createDirectories(dir.resolve("cache/discovery/offline.invalid_6443"));
    StringBuilder groups = new StringBuilder("{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[");
    String sep = "";
    for (var gv : SERVED.entrySet()) {
      String group = gv.getKey().contains("/") ? gv.getKey().substring(0, gv.getKey().indexOf('/')) : "";
      String version = gv.getKey().substring(gv.getKey().indexOf('/') + 1);
      String v = "{\"groupVersion\":\"" + gv.getKey() + "\",\"version\":\"" + version + "\"}";
      groups.append(sep).append("{\"name\":\"").append(group).append("\",\"versions\":[").append(v)
          .append("],\"preferredVersion\":").append(v).append('}');
      sep = ",";
      StringBuilder resources = new StringBuilder("{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\""
          + gv.getKey() + "\",\"resources\":[");
      String rsep = "";
      for (var kind : gv.getValue().entrySet()) {
        String[] r = kind.getValue().split(":");
        resources.append(rsep).append("{\"name\":\"").append(r[0]).append("\",\"singularName\":\"")
            .append(kind.getKey().toLowerCase()).append("\",\"namespaced\":").append(r[1]).append(",\"kind\":\"")
            .append(kind.getKey()).append("\",\"verbs\":[\"create\",\"get\",\"list\"]}");
        rsep = ",";
      }
      resources.append("]}");
      Path gvDir = Files.createDirectories(cache.resolve(gv.getKey()));
      Files.writeString(gvDir.resolve("serverresources.json"), resources);
    }
    groups.append("]}");
    Files.writeString(cache.resolve("servergroups.json"), groups);
  }

  @Test
  void theManifestPassesKubectlsClientSideDryRun() throws Exception {
    String[] out = kubectlCreate(DaemonSetContainer.MANIFEST.toAbsolutePath());
    assertEquals("0", out[0], out[1]);
    List<String> kinds = out[1].lines().filter(l -> l.startsWith("kind: ")).map(l -> l.substring(6)).toList();
    assertEquals(List.of("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap", "DaemonSet"), kinds, out[1]);
  }

  @Test
  void aKindTheApiDoesNotServeFails() throws Exception {
    Path bad = dir.resolve("bad.yaml");
    Files.writeString(bad, Files.readString(DaemonSetContainer.MANIFEST).replace("apiVersion: apps/v1", "apiVersion: apps/v1beta2"));
    String[] out = kubectlCreate(bad);
    assertNotEquals("0", out[0], out[1]);
    // not in the cache: kubectl asks the (unreachable) server, and cannot map the document
    assertTrue(out[1].contains("unable to recognize"), out[1]);
  }

  /** Exit status and output (stdout and stderr) of kubectl create --dry-run=client -o yaml -f FILE. */
  private String[] kubectlCreate(Path file) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder("kubectl", "--cache-dir=" + dir.resolve("cache"), "create",
        "--dry-run=client", "--validate=false", "-o", "yaml", "-f", file.toString()).redirectErrorStream(true);
    pb.environment().put("KUBECONFIG", dir.resolve("kubeconfig").toString());
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "kubectl finished");
    return new String[] {Integer.toString(p.exitValue()), output};
  }
}
