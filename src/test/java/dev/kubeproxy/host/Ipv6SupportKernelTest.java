package dev.kubeproxy.host;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.testutil.tier.Kernel;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Ipv6Support reading a scratch namespace's own sysctl from inside it. */
@Kernel
public class Ipv6SupportKernelTest {
  @Test
  void aNamespaceWithIpv6SwitchedOff() throws Exception {
    String ns = "kp-v6-" + UUID.randomUUID().toString().substring(0, 8);
    sh(List.of("ip", "netns", "add", ns));
    try {
      Ipv6Support inside = inNamespace(ns);
      assumeTrue(inside.enabled(), "the kernel has IPv6 (no ipv6.disable=1)");
      sh(List.of("ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1"));
      assertFalse(inside.enabled());
    } finally {
      sh(List.of("ip", "netns", "delete", ns));
    }
  }

  /** Reads the namespace's /proc through the agent's command runner (cat inside the namespace). */
  public static Ipv6Support inNamespace(String ns) {
    CommandRunner runner = CommandRunner.inNetns(ns);
    return new Ipv6Support(relative -> {
      CommandRunner.Result r = runner.run(List.of("cat", "/proc/" + relative));
      return r.ok() ? Optional.of(r.stdout()) : Optional.empty();
    });
  }

  private static String sh(List<String> argv) throws Exception {
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", argv) + ": " + out);
    }
    return out;
  }
}
