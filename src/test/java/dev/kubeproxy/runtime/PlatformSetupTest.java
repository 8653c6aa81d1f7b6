package dev.kubeproxy.runtime;

import dev.kubeproxy.host.HostPaths;
import dev.kubeproxy.host.OomScore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.TestConfigs;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Unit
class PlatformSetupTest {
  @TempDir
  Path root;

  private HostPaths tree(String mountOptions) throws IOException {
    HostPaths p = HostPaths.under(root);
    Files.createDirectories(p.procSys().resolve("net/netfilter"));
    for (String e : new String[] {"nf_conntrack_max", "nf_conntrack_tcp_timeout_established", "nf_conntrack_tcp_timeout_close_wait"}) {
      Files.writeString(p.procSys().resolve("net/netfilter/" + e), "1\n");
    }
    Files.createDirectories(p.hashsize().getParent());
    Files.writeString(p.hashsize(), "1");
    Files.createDirectories(p.procMounts().getParent());
    Files.writeString(p.procMounts(), "sysfs /sys sysfs " + mountOptions + " 0 0\n");
    Files.createDirectories(p.cpuOnline().getParent());
    Files.writeString(p.cpuOnline(), "0");
    Files.createDirectories(p.oomScoreAdj().getParent());
    Files.writeString(p.oomScoreAdj(), "0\n");
    return p;
  }

  @Test
  void appliesConntrackAndOomScore() throws Exception {
    HostPaths p = tree("rw");
    PlatformSetup.Result r = PlatformSetup.run(TestConfigs.options(c -> { }), p);
    assertFalse(r.sysfsReadOnly());
    assertEquals("0\n", Files.readString(p.oomScoreAdj()), "the OOM score is set on its own");
    PlatformSetup.adjustOomScore(TestConfigs.options(c -> { }), p);
    assertEquals("-999", Files.readString(p.oomScoreAdj()));
    assertEquals("131072", Files.readString(p.procSys().resolve("net/netfilter/nf_conntrack_max")));
  }

  @Test
  void readOnlySysfsIsReturnedForTheEvent() throws Exception {
    PlatformSetup.Result r = PlatformSetup.run(TestConfigs.options(c -> { }), tree("ro,relatime"));
    assertTrue(r.sysfsReadOnly());
  }

  @Test
  void oomScoreFailureIsOnlyLoggedAndUnsetIsLeftAlone() throws Exception {
    HostPaths p = tree("rw");
    Files.delete(p.oomScoreAdj());
    PlatformSetup.adjustOomScore(TestConfigs.options(c -> { }), p); // no exception
    Files.writeString(p.oomScoreAdj(), "5");
    PlatformSetup.adjustOomScore(TestConfigs.options(c -> c.oomScoreAdj = null), p);
    assertEquals("5", Files.readString(p.oomScoreAdj()));
  }

  @Test
  void conntrackFailureIsFatal() throws Exception {
    HostPaths p = tree("rw");
    Files.delete(p.procSys().resolve("net/netfilter/nf_conntrack_tcp_timeout_close_wait"));
    assertThrows(IOException.class, () -> PlatformSetup.run(TestConfigs.options(c -> { }), p));
  }

  @Test
  void oomValueOutOfRange() {
    IOException e = assertThrows(IOException.class, () -> OomScore.apply(root.resolve("x"), 1001));
    assertEquals("invalid value(1001) specified for oom_score_adj. Values must be within the range [-1000, 1000]", e.getMessage());
  }
}
