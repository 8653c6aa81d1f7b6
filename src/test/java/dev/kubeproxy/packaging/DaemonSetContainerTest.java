package dev.kubeproxy.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The podman command line ImageIT derives from docker/kube-proxy.yaml, checked without podman. */
@Unit
class DaemonSetContainerTest {
  @TempDir
  Path dir;

  @Test
  void theDaemonSetsContainerBecomesAPodmanRun() throws Exception {
    DaemonSetContainer ds = DaemonSetContainer.read();
    Path lock = dir.resolve("xtables.lock");
    List<String> run = ds.podmanRun("c", "img", "/run/netns/n", "node-9", "192.0.2.9", dir.resolve("cm"),
        c -> c.put("mode", "nftables"), Map.of("/run/xtables.lock", lock), List.of("--extra"), List.of("--arg"));
    String line = String.join(" ", run);
    assertTrue(run.contains("--privileged"), line);
    assertTrue(run.contains("--network=ns:/run/netns/n"), line);
    assertTrue(run.contains("--memory=" + 512L * 1024 * 1024), line);
    assertTrue(line.contains("--env NODE_NAME=node-9"), line);
    // the kubelet's $(NODE_NAME) expansion in the command, which replaces the image's entrypoint
    assertTrue(run.contains("--entrypoint=[\"kube-proxy\",\"--config=/var/lib/kube-proxy/config.conf\","
        + "\"--hostname-override=node-9\"]"), line);
    assertTrue(line.contains("--volume " + dir.resolve("cm") + ":/var/lib/kube-proxy:ro"), line);
    assertTrue(line.contains("--volume " + lock + ":/run/xtables.lock "), line);
    assertTrue(Files.exists(lock), "FileOrCreate");
    assertTrue(line.matches(".* --volume \\S+:/lib/modules:ro .*"), line);
    // options, the entrypoint, the image, then the command's further arguments
    int image = run.indexOf("img");
    assertEquals("--extra", run.get(image - 2), line);
    assertTrue(run.get(image - 1).startsWith("--entrypoint="), line);
    assertEquals(List.of("img", "--arg"), run.subList(image, run.size()));
    String config = Files.readString(dir.resolve("cm/config.conf"));
    assertTrue(config.contains("mode: \"nftables\"") || config.contains("mode: nftables"), config);
    assertTrue(Files.readString(dir.resolve("cm/kubeconfig.conf")).contains("kind: Config"));
    assertEquals(30, ds.terminationGraceSeconds(), "the API's default: the manifest sets none");
    assertEquals(10256, ds.livenessPort());
  }

  @Test
  void kubeletExpansion() {
    assertEquals("--n=a --m=$(B) $(A)", DaemonSetContainer.expand("--n=$(A) --m=$(B) $$(A)", Map.of("A", "a")));
  }
}
