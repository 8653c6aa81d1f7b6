package dev.kubeproxy.host;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class Ipv6SupportTest {
  @TempDir Path proc;

  private void write(String relative, String text) throws IOException {
    Path p = proc.resolve(relative);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
  }

  @Test
  void enabledWhenIfInet6ExistsAndTheSysctlIsZero() throws IOException {
    write("net/if_inet6", "00000000000000000000000000000001 01 80 10 80       lo\n");
    write("sys/net/ipv6/conf/all/disable_ipv6", "0\n");
    assertTrue(Ipv6Support.ofProc(proc).enabled());
  }

  @Test
  void notWithoutIfInet6AsAfterIpv6DisableAtBoot() {
    assertFalse(Ipv6Support.ofProc(proc).enabled());
  }

  @Test
  void notWhenSwitchedOffAtRunTime() throws IOException {
    write("net/if_inet6", "");
    write("sys/net/ipv6/conf/all/disable_ipv6", "1\n");
    assertFalse(Ipv6Support.ofProc(proc).enabled());
  }

  @Test
  void anUnreadableFileCountsAsNoIpv6() {
    assertFalse(new Ipv6Support(path -> {
      throw new IOException("permission denied");
    }).enabled());
  }

  /** Kernel tier: a scratch namespace's own sysctl, read from inside it. */
  @Test
  void aNamespaceWithIpv6SwitchedOff() throws Exception {
    assumeTrue("root".equals(System.getProperty("user.name")), "needs root for a network namespace");
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
