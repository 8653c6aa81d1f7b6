package dev.kubeproxy.backend.conntrack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.testutil.tier.Kernel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conntrack sysctls for real, inside a network namespace this test creates (the per-netns
 * net.netfilter values), checked with sysctl in that namespace; the host's values are only read.
 */
@Kernel
class ConntrackSysctlsNetnsTest {
  private static final List<String> KEYS = List.of("nf_conntrack_tcp_timeout_established", "nf_conntrack_tcp_timeout_close_wait",
      "nf_conntrack_tcp_be_liberal", "nf_conntrack_udp_timeout", "nf_conntrack_udp_timeout_stream", "nf_conntrack_max");

  @TempDir
  Path dir;
  private final CommandRunner host = new ProcessCommandRunner();
  private final String ns = "kp-http-" + UUID.randomUUID().toString().substring(0, 8);
  private boolean created;

  @BeforeEach
  void namespace() throws IOException {
    assumeTrue("root".equals(System.getProperty("user.name")), "needs root to create network namespaces");
    assumeTrue(Files.isDirectory(Path.of("/proc/sys/net/netfilter")) && Files.exists(Path.of("/proc/sys/net/netfilter/nf_conntrack_max")),
        "nf_conntrack is not loaded on this host");
    CommandRunner.Result r = host.run(List.of("ip", "netns", "add", ns));
    assumeTrue(r.ok(), "cannot create a network namespace: " + r.stderr());
    created = true;
    // nf_conntrack's per-netns sysctls appear once conntrack is used in the namespace
    CommandRunner.inNetns(ns).run(List.of("nft", "add table ip kp_http_probe"));
    CommandRunner.inNetns(ns).run(List.of("nft", "add chain ip kp_http_probe c { type filter hook output priority 0 ; }"));
    CommandRunner.inNetns(ns).run(List.of("nft", "add rule ip kp_http_probe c ct state new accept"));
    Files.createDirectories(dir.resolve("sys/module/nf_conntrack/parameters"));
    Files.createDirectories(dir.resolve("sys/devices/system/cpu"));
    Files.createDirectories(dir.resolve("proc"));
    Files.writeString(dir.resolve("sys/devices/system/cpu/online"), "0");
    Files.writeString(dir.resolve("proc/mounts"), "sysfs /sys sysfs rw,nosuid 0 0\n");
  }

  @AfterEach
  void cleanup() throws IOException {
    if (created) {
      host.run(List.of("ip", "netns", "delete", ns));
    }
  }

  private Map<String, String> sysctls(CommandRunner where) throws IOException {
    Map<String, String> m = new TreeMap<>();
    for (String k : KEYS) {
      CommandRunner.Result r = where.run(List.of("sysctl", "-n", "net.netfilter." + k));
      m.put(k, r.ok() ? r.stdout().trim() : "error: " + r.stderr().trim());
    }
    return m;
  }

  private CommandRunner.Result runMain(String... args) throws IOException {
    List<String> argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), ConntrackSysctlsNetnsMain.class.getName(), dir.toString()));
    argv.addAll(List.of(args));
    return CommandRunner.inNetns(ns).run(argv);
  }

  private static int count(String text, String needle) {
    int n = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
      n++;
    }
    return n;
  }

  @Test
  void setsThePerNamespaceValuesOnlyWhenTheyDiffer() throws IOException {
    Map<String, String> hostBefore = sysctls(host);
    Map<String, String> nsBefore = sysctls(CommandRunner.inNetns(ns));
    assumeTrue(!nsBefore.get("nf_conntrack_udp_timeout").startsWith("error"), "no per-netns conntrack sysctls: " + nsBefore);
    String max = nsBefore.get("nf_conntrack_max");
    // maxPerCore × 1 CPU = the namespace's current limit: equal, so not written (it is read-only outside
    // the initial namespace); a large fake hashsize keeps the host-global parameter out of it
    Files.writeString(dir.resolve("sys/module/nf_conntrack/parameters/hashsize"), Integer.toString(Integer.MAX_VALUE));
    String liberal = "0".equals(nsBefore.get("nf_conntrack_tcp_be_liberal")) ? "true" : "false";
    // raising the OOM score needs no privilege (lowering it needs CAP_SYS_RESOURCE, which CI may lack)
    CommandRunner.Result first = runMain(max, "0", "7201", "121", liberal, "47", "151", "500");
    assertEquals(0, first.exitCode(), first.stdout() + first.stderr());
    assertTrue(first.stdout().contains("sysfsReadOnly=false"), first.stdout());
    assertTrue(first.stdout().contains("oom_score_adj=500"), first.stdout());

    Map<String, String> nsAfter = sysctls(CommandRunner.inNetns(ns));
    assertEquals("7201", nsAfter.get("nf_conntrack_tcp_timeout_established"));
    assertEquals("121", nsAfter.get("nf_conntrack_tcp_timeout_close_wait"));
    assertEquals("1", nsAfter.get("nf_conntrack_tcp_be_liberal"));
    assertEquals("47", nsAfter.get("nf_conntrack_udp_timeout"));
    assertEquals("151", nsAfter.get("nf_conntrack_udp_timeout_stream"));
    assertEquals(max, nsAfter.get("nf_conntrack_max"));
    int expectedWrites = 4 + ("true".equals(liberal) ? 1 : 0);
    assertEquals(expectedWrites, count(first.stderr(), "\"Set sysctl\" entry="), first.stderr());
    assertTrue(first.stderr().contains("\"Setting nf_conntrack_max\" nfConntrackMax=" + max), first.stderr());

    CommandRunner.Result second = runMain(max, "0", "7201", "121", liberal, "47", "151", "500");
    assertEquals(0, second.exitCode(), second.stderr());
    assertEquals(0, count(second.stderr(), "\"Set sysctl\" entry="), "nothing differs the second time: " + second.stderr());

    assertEquals(hostBefore, sysctls(host), "the host's values are untouched");
  }
}
