package dev.kubeproxy.packaging;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1DaemonSet;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1Volume;
import io.kubernetes.client.openapi.models.V1VolumeMount;
import io.kubernetes.client.util.Yaml;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent's container of docker/kube-proxy.yaml's DaemonSet, turned into the {@code podman run}
 * arguments that start it as a kubelet would on one node: its command with the kubelet's
 * {@code $(VAR)} expansion, its environment (the downward API's node name), privileged, its memory
 * limit, and its volumes (the ConfigMap's files, the node's host paths). The node's network is a
 * namespace the caller names, in place of hostNetwork.
 */
final class DaemonSetContainer {
  static final Path MANIFEST = Path.of("docker/kube-proxy.yaml");
  /** What the API server defaults an unset terminationGracePeriodSeconds to. */
  private static final long DEFAULT_GRACE_SECONDS = 30;
  /** "$$" (an escaped "$") or a $(VAR) reference, found in one left-to-right scan as the kubelet does. */
  private static final Pattern VAR_REF = Pattern.compile("\\$\\$|\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

  final V1DaemonSet daemonSet;
  final V1ConfigMap configMap;
  final V1PodSpec pod;
  final V1Container container;

  private DaemonSetContainer(V1DaemonSet daemonSet, V1ConfigMap configMap) {
    this.daemonSet = daemonSet;
    this.configMap = configMap;
    this.pod = daemonSet.getSpec().getTemplate().getSpec();
    this.container = pod.getContainers().get(0);
  }

  /** The DaemonSet and its ConfigMap, read strictly with the API's typed models. */
  static DaemonSetContainer read() throws IOException {
    V1DaemonSet ds = null;
    V1ConfigMap cm = null;
    for (Object o : Yaml.loadAll(Files.readString(MANIFEST))) {
      if (o instanceof V1DaemonSet d) {
        ds = d;
      } else if (o instanceof V1ConfigMap c) {
        cm = c;
      }
    }
    if (ds == null || cm == null) {
      throw new IllegalStateException(MANIFEST + " holds no DaemonSet or no ConfigMap");
    }
    return new DaemonSetContainer(ds, cm);
  }

  long memoryLimitBytes() {
    return container.getResources().getLimits().get("memory").getNumber().longValueExact();
  }

  long terminationGraceSeconds() {
    Long s = pod.getTerminationGracePeriodSeconds();
    return s == null ? DEFAULT_GRACE_SECONDS : s;
  }

  /** The container port of that name (a probe's or a scrape's). */
  int port(String name) {
    return container.getPorts().stream().filter(p -> name.equals(p.getName())).findFirst()
        .orElseThrow(() -> new IllegalStateException("no container port " + name)).getContainerPort();
  }

  int livenessPort() {
    return Integer.parseInt(container.getLivenessProbe().getHttpGet().getPort().toString());
  }

  String livenessPath() {
    return container.getLivenessProbe().getHttpGet().getPath();
  }

  /** The ConfigMap's config.conf as a tree, to read addresses from or to edit. */
  ObjectNode config() throws IOException {
    return (ObjectNode) new ObjectMapper(new YAMLFactory()).readTree(configMap.getData().get("config.conf"));
  }

  /** The environment the kubelet gives the container on node {@code nodeName} (with hostNetwork). */
  Map<String, String> environment(String nodeName, String nodeIp) {
    Map<String, String> env = new LinkedHashMap<>();
    for (V1EnvVar e : container.getEnv() == null ? List.<V1EnvVar>of() : container.getEnv()) {
      if (e.getValue() != null || e.getValueFrom() == null) {
        env.put(e.getName(), expand(e.getValue() == null ? "" : e.getValue(), env));
        continue;
      }
      String field = e.getValueFrom().getFieldRef() == null ? null : e.getValueFrom().getFieldRef().getFieldPath();
      String value = switch (String.valueOf(field)) {
        case "spec.nodeName" -> nodeName;
        case "status.hostIP", "status.podIP" -> nodeIp; // one and the same with hostNetwork
        default -> throw new IllegalStateException("env " + e.getName() + ": the test cannot provide " + e.getValueFrom());
      };
      env.put(e.getName(), value);
    }
    return env;
  }

  /** The kubelet's expansion of $(VAR) in command and args; unknown references stay as written. */
  static String expand(String s, Map<String, String> env) {
    Matcher m = VAR_REF.matcher(s);
    StringBuilder sb = new StringBuilder();
    while (m.find()) {
      String v = m.group(1) == null ? "$" : env.get(m.group(1));
      m.appendReplacement(sb, Matcher.quoteReplacement(v == null ? m.group() : v));
    }
    m.appendTail(sb);
    return sb.toString();
  }

  /**
   * The arguments of {@code podman run} that start the container: options, the image, then the
   * command's arguments.
   *
   * @param configDir   where the ConfigMap's files are written, as the kubelet projects them
   * @param editConfig  an edit of config.conf (an operator's change of the ConfigMap), or identity
   * @param hostPaths   the node's files for hostPath volumes whose host path is a key (others: the host's own)
   * @param extraOptions further options of podman run (the test's own volumes)
   * @param extraArgs   arguments appended to the DaemonSet's command
   */
  List<String> podmanRun(String name, String image, String netnsPath, String nodeName, String nodeIp, Path configDir,
      UnaryOperator<ObjectNode> editConfig, Map<String, Path> hostPaths, List<String> extraOptions,
      List<String> extraArgs) throws IOException {
    List<String> run = new ArrayList<>(List.of("--name", name, "--pull=never", "--network=ns:" + netnsPath));
    if (container.getSecurityContext() != null && Boolean.TRUE.equals(container.getSecurityContext().getPrivileged())) {
      run.add("--privileged");
    }
    long limit = memoryLimitBytes();
    // No swap beyond the limit, as the kubelet runs containers.
    run.addAll(List.of("--memory=" + limit, "--memory-swap=" + limit));
    Map<String, String> env = environment(nodeName, nodeIp);
    env.forEach((k, v) -> run.addAll(List.of("--env", k + "=" + v)));
    for (V1VolumeMount m : container.getVolumeMounts()) {
      V1Volume v = pod.getVolumes().stream().filter(x -> x.getName().equals(m.getName())).findFirst()
          .orElseThrow(() -> new IllegalStateException("no volume " + m.getName()));
      String source;
      boolean readOnly = Boolean.TRUE.equals(m.getReadOnly());
      if (v.getConfigMap() != null) {
        if (!v.getConfigMap().getName().equals(configMap.getMetadata().getName())) {
          throw new IllegalStateException("volume " + v.getName() + " names another ConfigMap");
        }
        Files.createDirectories(configDir);
        for (var e : configMap.getData().entrySet()) {
          String text = e.getValue();
          if (e.getKey().equals("config.conf")) {
            text = new ObjectMapper(new YAMLFactory()).writeValueAsString(editConfig.apply(config()));
          }
          Files.writeString(configDir.resolve(e.getKey()), text);
        }
        source = configDir.toString();
        readOnly = true; // ConfigMap volumes always are
      } else if (v.getHostPath() != null) {
        String path = v.getHostPath().getPath();
        Path own = hostPaths.get(path);
        if (own != null && "FileOrCreate".equals(v.getHostPath().getType()) && !Files.exists(own)) {
          Files.createFile(own);
        }
        source = own != null ? own.toString() : path;
        String type = v.getHostPath().getType() == null ? "" : v.getHostPath().getType();
        if (own == null && !Files.exists(Path.of(path)) && (type.isEmpty() || type.equals("DirectoryOrCreate"))) {
          // The runtime would create the missing directory on the node: an empty one of the test's instead.
          source = Files.createDirectories(configDir.resolveSibling("hostpath-" + v.getName())).toString();
        }
      } else {
        throw new IllegalStateException("volume " + v.getName() + ": the test knows configMap and hostPath only");
      }
      run.addAll(List.of("--volume", source + ":" + m.getMountPath() + (readOnly ? ":ro" : "")));
    }
    run.addAll(extraOptions);
    // command replaces the image's entrypoint, args its CMD: the entrypoint as a JSON array.
    List<String> command = container.getCommand().stream().map(s -> expand(s, env)).toList();
    run.add("--entrypoint=" + new ObjectMapper().writeValueAsString(command));
    run.add(image);
    if (container.getArgs() != null) {
      container.getArgs().forEach(a -> run.add(expand(a, env)));
    }
    run.addAll(extraArgs);
    return run;
  }
}
