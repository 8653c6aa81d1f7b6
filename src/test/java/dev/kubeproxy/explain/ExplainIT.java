package dev.kubeproxy.explain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.FreePorts;
import dev.kubeproxy.testutil.tier.EndToEnd;
import java.io.IOException;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The packaged jar: the agent on conf/examples with --manifests --dry-run, and {@code kube-proxy
 * explain} against it (as the README's quick start shows), in both modes. Writes no rules.
 */
@EndToEnd
class ExplainIT {
  @TempDir Path tmp;

  record Run(int status, String out, String err) {}

  static Run java(Path log, List<String> args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("java", "-jar", "target/kube-proxy.jar"));
    cmd.addAll(args);
    Path out = Files.createTempFile(log.getParent(), "out", ".txt");
    Path err = Files.createTempFile(log.getParent(), "err", ".txt");
    Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("explain did not finish in 60 s: " + cmd);
    }
    return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  @ParameterizedTest
  @ValueSource(strings = {"iptables", "nftables"})
  void explainAsksTheDryRunAgent(String mode) throws Exception {
    int metrics = FreePorts.loopback();
    Path log = tmp.resolve("agent.log");
    Process agent = new ProcessBuilder("java", "-jar", "target/kube-proxy.jar", "--manifests", "conf/examples",
        "--hostname-override", "node-1", "--dry-run", "--proxy-mode", mode, "--cluster-cidr", "10.244.0.0/16",
        "--healthz-bind-address", "127.0.0.1:" + FreePorts.loopback(), "--metrics-bind-address", "127.0.0.1:" + metrics)
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    String address = "--metrics-bind-address=127.0.0.1:" + metrics;
    try {
      // the agent is up once explain gets a report (the first sync may take a few seconds)
      Run web = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (System.nanoTime() < deadline) {
        web = java(log, List.of("explain", "default/web", address));
        if (web.status() == 0 && web.out().contains("last sync:") && !web.out().contains("none, no sync")) {
          break;
        }
        assertTrue(agent.isAlive(), "the agent exited:\n" + Files.readString(log));
        Thread.sleep(1000);
      }
      assertEquals(0, web.status(), web + "\nagent log:\n" + Files.readString(log));
      String out = web.out();
      assertTrue(out.contains("(" + mode + " mode, dry run"), out);
      assertTrue(out.contains("default/web:http TCP (IPv4)") && out.contains("10.96.0.10:80"), out);
      assertTrue(out.contains("10.244.1.5:8080") && out.contains("node node-1 (this node)")
          && out.contains("zone zone-a"), out);
      assertTrue(out.contains(mode.equals("iptables") ? "-A KUBE-SVC-" : "service-") && out.contains("10.244.2.5"),
          "what the dry run printed for it: " + out);

      Run path = java(log, List.of("explain", "shop/shop", "--from", "198.51.100.1", "--to", "192.168.200.100:80",
          address));
      assertEquals(0, path.status(), path.toString());
      assertTrue(path.out().contains("=> DROP: source outside loadBalancerSourceRanges"), path.out());
      Run allowed = java(log, List.of("explain", "shop/shop", "--from=192.168.200.7", "--to=192.168.200.100:80",
          address));
      assertTrue(allowed.out().contains("=> DNAT") && allowed.out().contains("10.244.1.8:8080")
          && allowed.out().contains("source kept"), allowed.out());
      // the same packets through the rules the dry run printed, in either mode
      assertTrue(path.out().contains("the rules agree with the model"), path.out());
      assertTrue(allowed.out().contains("the rules agree with the model"), allowed.out());
      assertTrue(allowed.out().contains(mode.equals("iptables") ? "through the rules programmed (the last iptables-restore"
          + " input" : "through the rules programmed (the nft commands the dry run printed"), allowed.out());

      // the metrics address from a configuration file, as the agent reads it
      Path config = tmp.resolve("config.yaml");
      Files.writeString(config, "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n"
          + "mode: " + mode + "\nmetricsBindAddress: 127.0.0.1:" + metrics + "\n", StandardCharsets.UTF_8);
      Run viaConfig = java(log, List.of("explain", "default/sticky", "--config", config.toString()));
      assertEquals(0, viaConfig.status(), viaConfig.toString());
      assertTrue(viaConfig.out().contains("affinity:        ClientIP"), viaConfig.out());

      Run unknown = java(log, List.of("explain", "default/wbe", address));
      assertEquals(1, unknown.status());
      assertTrue(unknown.out().contains("close names: default/web"), unknown.toString());
    } finally {
      agent.destroy();
      if (!agent.waitFor(10, TimeUnit.SECONDS)) {
        agent.destroyForcibly();
      }
    }
    Run down = java(log, List.of("explain", "default/web", address));
    assertEquals(1, down.status());
    assertTrue(down.err().contains("no kube-proxy answers at http://127.0.0.1:" + metrics)
        && down.err().contains("--metrics-bind-address"), down.toString());
    Run bad = java(log, List.of("explain", "web", address));
    assertEquals(1, bad.status());
    assertTrue(bad.err().contains("NAMESPACE/NAME"), bad.toString());
  }

}
