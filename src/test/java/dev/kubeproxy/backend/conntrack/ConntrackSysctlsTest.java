package dev.kubeproxy.backend.conntrack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.host.HostPaths;
import dev.kubeproxy.testutil.TestConfigs;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sysctl decisions against a temporary /proc/sys and /sys tree (never the host's). */
@Unit
class ConntrackSysctlsTest {
  private static final FileTime OLD = FileTime.fromMillis(0);
  private static final String[] ENTRIES = {"nf_conntrack_max", "nf_conntrack_tcp_timeout_established",
      "nf_conntrack_tcp_timeout_close_wait", "nf_conntrack_tcp_be_liberal", "nf_conntrack_udp_timeout",
      "nf_conntrack_udp_timeout_stream"};

  @TempDir
  Path root;
  private HostPaths paths;
  private KubeProxyConfiguration.Conntrack conntrack;

  @BeforeEach
  void tree() throws IOException {
    paths = HostPaths.under(root);
    Files.createDirectories(paths.procSys().resolve("net/netfilter"));
    // kernel defaults of a small machine
    write("nf_conntrack_max", "65536");
    write("nf_conntrack_tcp_timeout_established", "432000");
    write("nf_conntrack_tcp_timeout_close_wait", "60");
    write("nf_conntrack_tcp_be_liberal", "0");
    write("nf_conntrack_udp_timeout", "30");
    write("nf_conntrack_udp_timeout_stream", "120");
    Files.createDirectories(paths.hashsize().getParent());
    Files.writeString(paths.hashsize(), "16384\n");
    Files.createDirectories(paths.procMounts().getParent());
    Files.writeString(paths.procMounts(), "proc /proc proc rw,nosuid 0 0\nsysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n");
    Files.createDirectories(paths.cpuOnline().getParent());
    Files.writeString(paths.cpuOnline(), "0-3\n");
    for (String e : ENTRIES) {
      Files.setLastModifiedTime(sysctl(e), OLD);
    }
    Files.setLastModifiedTime(paths.hashsize(), OLD);
    conntrack = TestConfigs.defaults().conntrack;
  }

  private Path sysctl(String name) {
    return paths.procSys().resolve("net/netfilter/" + name);
  }

  private void write(String name, String value) throws IOException {
    Files.writeString(sysctl(name), value + "\n");
  }

  private Map<String, String> values() throws IOException {
    Map<String, String> m = new TreeMap<>();
    for (String e : ENTRIES) {
      m.put(e, Files.readString(sysctl(e)).trim());
    }
    m.put("hashsize", Files.readString(paths.hashsize()).trim());
    return m;
  }

  private boolean written(Path p) throws IOException {
    return !Files.getLastModifiedTime(p).equals(OLD);
  }

  @Test
  void defaultsOnFourCpusUseTheMinimumAndRaiseHashsize() throws IOException {
    assertEquals(ConntrackSysctls.Outcome.APPLIED, new ConntrackSysctls(paths).apply(conntrack));
    assertEquals(Map.of("nf_conntrack_max", "131072", "nf_conntrack_tcp_timeout_established", "86400",
        "nf_conntrack_tcp_timeout_close_wait", "3600", "nf_conntrack_tcp_be_liberal", "0",
        "nf_conntrack_udp_timeout", "30", "nf_conntrack_udp_timeout_stream", "120", "hashsize", "32768"), values());
    assertFalse(written(sysctl("nf_conntrack_tcp_be_liberal")));
    assertFalse(written(sysctl("nf_conntrack_udp_timeout")));
  }

  @Test
  void scaledMaxOnMoreCpus() throws IOException {
    Files.writeString(paths.cpuOnline(), "0-7,9\n"); // 9 CPUs
    new ConntrackSysctls(paths).apply(conntrack);
    assertEquals("294912", values().get("nf_conntrack_max"));
    assertEquals("73728", values().get("hashsize"));
  }

  @Test
  void equalValuesAreNotWritten() throws IOException {
    write("nf_conntrack_max", "131072");
    write("nf_conntrack_tcp_timeout_established", "86400");
    write("nf_conntrack_tcp_timeout_close_wait", "3600");
    Files.writeString(paths.hashsize(), "65536\n"); // already >= max/4: left alone
    for (String e : ENTRIES) {
      Files.setLastModifiedTime(sysctl(e), OLD);
    }
    Files.setLastModifiedTime(paths.hashsize(), OLD);
    new ConntrackSysctls(paths).apply(conntrack);
    for (String e : ENTRIES) {
      assertFalse(written(sysctl(e)), e);
    }
    assertFalse(written(paths.hashsize()));
  }

  @Test
  void maxPerCoreZeroLeavesTheLimitAndIgnoresMin() throws IOException {
    conntrack.maxPerCore = 0;
    conntrack.min = 1_000_000;
    new ConntrackSysctls(paths).apply(conntrack);
    assertEquals("65536", values().get("nf_conntrack_max"));
    assertEquals("16384", values().get("hashsize"));
    conntrack.maxPerCore = null;
    new ConntrackSysctls(paths).apply(conntrack);
    assertEquals("65536", values().get("nf_conntrack_max"));
  }

  @Test
  void zeroTimeoutsAreLeftAloneAndLiberalIsOnlyEverSetToOne() throws IOException {
    conntrack.maxPerCore = 0;
    conntrack.tcpEstablishedTimeout = Duration.ZERO;
    conntrack.tcpCloseWaitTimeout = null;
    conntrack.tcpBeLiberal = true;
    conntrack.udpTimeout = Duration.ofMillis(45_900); // truncated to whole seconds
    conntrack.udpStreamTimeout = Duration.ofMinutes(3);
    write("nf_conntrack_tcp_be_liberal", "0");
    new ConntrackSysctls(paths).apply(conntrack);
    Map<String, String> v = values();
    assertEquals("432000", v.get("nf_conntrack_tcp_timeout_established"));
    assertEquals("60", v.get("nf_conntrack_tcp_timeout_close_wait"));
    assertEquals("1", v.get("nf_conntrack_tcp_be_liberal"));
    assertEquals("45", v.get("nf_conntrack_udp_timeout"));
    assertEquals("180", v.get("nf_conntrack_udp_timeout_stream"));

    write("nf_conntrack_tcp_be_liberal", "1");
    conntrack.tcpBeLiberal = false;
    new ConntrackSysctls(paths).apply(conntrack);
    assertEquals("1", values().get("nf_conntrack_tcp_be_liberal"));
  }

  @Test
  void readOnlySysfsIsReportedNotFatal() throws IOException {
    Files.writeString(paths.procMounts(), "sysfs /sys sysfs ro,nosuid,nodev,noexec,relatime 0 0\nsysfs /other sysfs rw 0 0\n");
    assertEquals(ConntrackSysctls.Outcome.READ_ONLY_SYSFS, new ConntrackSysctls(paths).apply(conntrack));
    Map<String, String> v = values();
    assertEquals("131072", v.get("nf_conntrack_max"));
    assertEquals("16384", v.get("hashsize"));
    assertEquals("86400", v.get("nf_conntrack_tcp_timeout_established")); // the rest still applies
  }

  @Test
  void noSysfsMountIsFatal() throws IOException {
    Files.writeString(paths.procMounts(), "proc /proc proc rw 0 0\n");
    IOException e = assertThrows(IOException.class, () -> new ConntrackSysctls(paths).apply(conntrack));
    assertEquals("no sysfs mounted", e.getMessage());
  }

  @Test
  void aRefusedMaxIsNotFatal() throws IOException {
    Files.delete(sysctl("nf_conntrack_max")); // refused: the write fails
    assertEquals(ConntrackSysctls.Outcome.APPLIED, new ConntrackSysctls(paths).apply(conntrack));
    assertEquals("86400", Files.readString(sysctl("nf_conntrack_tcp_timeout_established")).trim(),
        "the rest still applies");
    assertEquals("16384", Files.readString(paths.hashsize()).trim());
  }

  @Test
  void aMissingTimeoutSysctlIsFatal() throws IOException {
    Files.delete(sysctl("nf_conntrack_tcp_timeout_established"));
    IOException e = assertThrows(IOException.class, () -> new ConntrackSysctls(paths).apply(conntrack));
    assertEquals("write " + sysctl("nf_conntrack_tcp_timeout_established") + ": no such file or directory", e.getMessage());
  }

  @Test
  void theHostsHigherMaxIsNeverLowered() throws IOException {
    write("nf_conntrack_max", "2000000");
    Files.setLastModifiedTime(sysctl("nf_conntrack_max"), OLD);
    new ConntrackSysctls(paths).apply(conntrack);
    assertEquals("2000000", values().get("nf_conntrack_max"));
    assertFalse(written(sysctl("nf_conntrack_max")));
    assertEquals("16384", values().get("hashsize"));
  }

  @Test
  void cpuLists() {
    assertEquals(1, ConntrackSysctls.countCpuList("0"));
    assertEquals(4, ConntrackSysctls.countCpuList("0-3"));
    assertEquals(7, ConntrackSysctls.countCpuList("0-3,8,10-11"));
  }

  @Test
  void conntrackMaxRule() {
    KubeProxyConfiguration.Conntrack c = TestConfigs.defaults().conntrack;
    assertEquals(131072, ConntrackSysctls.conntrackMax(c, 1));
    assertEquals(131072, ConntrackSysctls.conntrackMax(c, 4));
    assertEquals(163840, ConntrackSysctls.conntrackMax(c, 5));
    c.min = null;
    assertEquals(32768, ConntrackSysctls.conntrackMax(c, 1));
    c.maxPerCore = -1;
    assertEquals(0, ConntrackSysctls.conntrackMax(c, 4));
  }

  @Test
  void scaledConntrackMaxIsCappedAtOneMebiEntries() {
    KubeProxyConfiguration.Conntrack c = TestConfigs.defaults().conntrack;
    assertEquals(1_048_576, ConntrackSysctls.conntrackMax(c, 32)); // exactly 32768 × 32
    assertEquals(1_048_576, ConntrackSysctls.conntrackMax(c, 128)); // 4,194,304 uncapped
    c.min = 2_000_000; // an explicit floor above the cap is kept
    assertEquals(2_000_000, ConntrackSysctls.conntrackMax(c, 128));
  }
}
