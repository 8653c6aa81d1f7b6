package dev.kubeproxy.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kubeproxy.config.ConfigCodec;
import dev.kubeproxy.config.ConfigValidation;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.testutil.tier.Unit;
import io.kubernetes.client.openapi.models.V1ClusterRole;
import io.kubernetes.client.openapi.models.V1ClusterRoleBinding;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1DaemonSet;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.util.Yaml;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docker/kube-proxy.yaml read with the official client's typed models (the same schema the API
 * server applies), since no kubectl server is reachable here (docker/Dockerfile: DockerfileTest).
 */
@Unit
class DockerManifestTest {
  private static final Path MANIFEST = Path.of("docker/kube-proxy.yaml");
  private static final Map<Class<?>, Object> OBJECTS = new HashMap<>();

  @BeforeAll
  static void load() throws IOException {
    List<Object> docs = Yaml.loadAll(Files.readString(MANIFEST));
    for (Object o : docs) {
      OBJECTS.put(o.getClass(), o);
    }
    assertEquals(5, docs.size(), "ServiceAccount, ClusterRole, ClusterRoleBinding, ConfigMap, DaemonSet");
  }

  @SuppressWarnings("unchecked")
  private static <T> T get(Class<T> type) {
    T o = (T) OBJECTS.get(type);
    assertNotNull(o, type.getSimpleName() + " in " + MANIFEST);
    return o;
  }

  @Test
  void theTypedParseRejectsUnknownFields() {
    String typo = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: x}\nspec:\n  template:\n    spec:\n      hostNetwrk: true\n";
    org.junit.jupiter.api.Assertions.assertThrows(Exception.class, () -> Yaml.load(typo));
  }

  @Test
  void rbacIsLeastPrivilege() {
    V1ServiceAccount sa = get(V1ServiceAccount.class);
    assertEquals("kube-system", sa.getMetadata().getNamespace());
    Set<String> grants = new TreeSet<>();
    for (V1PolicyRule r : get(V1ClusterRole.class).getRules()) {
      assertTrue(r.getResourceNames() == null || r.getResourceNames().isEmpty());
      assertTrue(r.getNonResourceURLs() == null || r.getNonResourceURLs().isEmpty());
      for (String g : r.getApiGroups()) {
        for (String res : r.getResources()) {
          for (String v : r.getVerbs()) {
            grants.add((g.isEmpty() ? "core" : g) + "/" + res + ":" + v);
          }
        }
      }
    }
    assertEquals(new TreeSet<>(List.of(
        "core/services:list", "core/services:watch",
        "core/nodes:get", "core/nodes:list", "core/nodes:watch",
        "discovery.k8s.io/endpointslices:list", "discovery.k8s.io/endpointslices:watch",
        "networking.k8s.io/servicecidrs:list", "networking.k8s.io/servicecidrs:watch",
        "core/events:create", "core/events:patch", "events.k8s.io/events:create", "events.k8s.io/events:patch")), grants);
    V1ClusterRoleBinding b = get(V1ClusterRoleBinding.class);
    assertEquals(get(V1ClusterRole.class).getMetadata().getName(), b.getRoleRef().getName());
    assertEquals("ServiceAccount", b.getSubjects().get(0).getKind());
    assertEquals(sa.getMetadata().getName(), b.getSubjects().get(0).getName());
    assertEquals("kube-system", b.getSubjects().get(0).getNamespace());
  }

  @Test
  void daemonSetHasTheKubeadmShape() {
    V1DaemonSet ds = get(V1DaemonSet.class);
    assertEquals("kube-system", ds.getMetadata().getNamespace());
    var pod = ds.getSpec().getTemplate().getSpec();
    assertEquals(Boolean.TRUE, pod.getHostNetwork());
    assertEquals("system-node-critical", pod.getPriorityClassName());
    assertEquals(get(V1ServiceAccount.class).getMetadata().getName(), pod.getServiceAccountName());
    assertEquals(ds.getSpec().getSelector().getMatchLabels(), ds.getSpec().getTemplate().getMetadata().getLabels());
    V1Container c = pod.getContainers().get(0);
    assertEquals(Boolean.TRUE, c.getSecurityContext().getPrivileged());
    assertEquals(List.of("kube-proxy", "--config=/var/lib/kube-proxy/config.conf", "--hostname-override=$(NODE_NAME)"),
        c.getCommand(), "the image's launcher (bin/kube-proxy), not a java command line of its own");
    // The launcher bounds the heap relative to the memory limit: without a limit it would take the node's RAM.
    var limit = c.getResources().getLimits().get("memory");
    var request = c.getResources().getRequests().get("memory");
    assertNotNull(limit, "a memory limit, which the heap is sized from");
    assertTrue(request.getNumber().compareTo(limit.getNumber()) <= 0, "request <= limit");
    assertEquals("spec.nodeName", c.getEnv().get(0).getValueFrom().getFieldRef().getFieldPath());
    assertEquals("NODE_NAME", c.getEnv().get(0).getName());
    assertEquals(List.of(10256, 10249), c.getPorts().stream().map(p -> p.getContainerPort()).toList());
    assertEquals("/livez", c.getLivenessProbe().getHttpGet().getPath());
    assertEquals("10256", c.getLivenessProbe().getHttpGet().getPort().toString());
    Map<String, String> mounts = new HashMap<>();
    c.getVolumeMounts().forEach(m -> mounts.put(m.getName(), m.getMountPath()));
    assertEquals(Map.of("kube-proxy", "/var/lib/kube-proxy", "xtables-lock", "/run/xtables.lock", "lib-modules", "/lib/modules"), mounts);
    Map<String, String> volumes = new HashMap<>();
    pod.getVolumes().forEach(v -> volumes.put(v.getName(),
        v.getConfigMap() != null ? "configMap:" + v.getConfigMap().getName() : "hostPath:" + v.getHostPath().getPath()));
    assertEquals(Map.of("kube-proxy", "configMap:" + get(V1ConfigMap.class).getMetadata().getName(),
        "xtables-lock", "hostPath:/run/xtables.lock", "lib-modules", "hostPath:/lib/modules"), volumes);
  }

  /**
   * The footprint benchmark's figures (README, "Memory and start-up"), in MB: the highest RSS of the
   * 10-minute churn run at 1,000 Services x 10 endpoints, the highest RSS after the first sync at
   * 10,000 x 10 (2026-12-04: 193-205 MB with a 384 or 512 MiB limit), and the heap in use then (the
   * heap's bound must hold it; 92.4 MB in nftables mode, late on 2026-12-04).
   */
  private static final double CHURN_RSS_1K_MB = 167;
  private static final double FIRST_SYNC_RSS_10K_MB = 205;
  private static final double HEAP_IN_USE_10K_MB = 93;

  @Test
  void resourcesComeFromTheFootprintFiguresWithHeadroom() {
    V1Container c = get(V1DaemonSet.class).getSpec().getTemplate().getSpec().getContainers().get(0);
    double mb = 1_000_000;
    double request = c.getResources().getRequests().get("memory").getNumber().doubleValue() / mb;
    double limit = c.getResources().getLimits().get("memory").getNumber().doubleValue() / mb;
    assertTrue(request >= 1.2 * CHURN_RSS_1K_MB, "request " + request + " MB: the 1,000-Service churn's RSS + 20%");
    assertTrue(limit >= 1.3 * FIRST_SYNC_RSS_10K_MB, "limit " + limit + " MB: the 10,000-Service RSS + 30%");
    // bin/kube-proxy: -XX:MaxRAMPercentage=60
    assertTrue(0.6 * limit >= 1.3 * HEAP_IN_USE_10K_MB, "the heap's bound, 60% of the limit, holds the "
        + "10,000-Service heap + 30%: " + 0.6 * limit + " MB");
    assertTrue(limit <= 3 * FIRST_SYNC_RSS_10K_MB, "the limit is not a guess far above what was measured");
  }

  @Test
  void configMapHoldsAStrictlyValidKubeProxyConfiguration() throws Exception {
    V1ConfigMap cm = get(V1ConfigMap.class);
    ConfigCodec.Decoded decoded = ConfigCodec.decode("config.conf", cm.getData().get("config.conf").getBytes(StandardCharsets.UTF_8));
    assertEquals(List.of(), decoded.strictErrors(), "strict decoding");
    KubeProxyConfiguration config = decoded.config();
    assertEquals(List.of(), ConfigValidation.validate(config), "validation");
    assertEquals("/var/lib/kube-proxy/kubeconfig.conf", config.clientConnection.kubeconfig);
    assertEquals("0.0.0.0:10256", config.healthzBindAddress);
    JsonNode kubeconfig = new ObjectMapper(new YAMLFactory()).readTree(cm.getData().get("kubeconfig.conf"));
    assertEquals("Config", kubeconfig.get("kind").asText());
    assertEquals("/var/run/secrets/kubernetes.io/serviceaccount/token", kubeconfig.get("users").get(0).get("user").get("tokenFile").asText());
  }
}
