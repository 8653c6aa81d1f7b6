package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.netfilter.Sysctls;

import dev.kubeproxy.metrics.ProxyMetrics;

import static dev.kubeproxy.backend.iptables.Fixtures.clusterCidr;
import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.SyncResult;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --dry-run prints the full restore input and runs nothing (no root, no iptables needed). */
@Unit
class DryRunTest {
  @TempDir Path sysctlRoot;

  @Test
  void printsTheFullRestoreInputWithoutIptables() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    ProxierSettings settings = Fixtures.settings(IpFamily.IPv4, List.of(), clusterCidr("10.244.0.0/16"), false, true,
        out);
    // Every command this runner starts fails (no such namespace): as on a machine without iptables.
    CommandRunner nothingRuns = CommandRunner.inNetns("kp-ipt-no-such-namespace");
    IptablesProxier proxier = new IptablesProxier(settings, nothingRuns, new ProxyMetrics(), new Sysctls(sysctlRoot), List::of, null);
    proxier.privilegedInit();
    var st = state().add(svc(spn("demo", "web", "http", "TCP"), "10.96.12.34", 80).nodePort(30080),
        ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false)).build();
    SyncResult result = proxier.sync(st);
    assertTrue(result.full());
    String printed = bytes.toString(StandardCharsets.UTF_8);
    String expected = "# iptables-restore --noflush --counters input (dry run, nothing applied)\n"
        + new RulesetGenerator().generate(Fixtures.options(IpFamily.IPv4, clusterCidr("10.244.0.0/16"))
            .withNfacctCounters(NfacctCounters.ALL), st, true, null).payload();
    assertEquals(expected, printed);
    // as on a host where the real run finds its nfacct counters, though the dry run creates none
    assertTrue(printed.contains("--ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP"), printed);
    assertEquals(List.of(), List.of(sysctlRoot.toFile().list()), "no sysctl written in a dry run");
  }
}
