package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.netfilter.IptablesBackend;
import dev.kubeproxy.backend.netfilter.Sysctls;

import static dev.kubeproxy.backend.iptables.Fixtures.clusterCidr;
import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.tier.Kernel;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * nfacct in a scratch network namespace: counters created over netlink, the rules that use them
 * loaded by both iptables backends, localhost NodePort packets counted, and the two metrics read
 * from the kernel at scrape. Needs root and the iptables tools; skipped otherwise.
 */
@Kernel
class NfacctKernelTest {
  static final ServicePortName WEB = spn("demo", "web", "http", "TCP");

  @RegisterExtension final ScratchNamespace.PerTest scratch = new ScratchNamespace.PerTest();

  @Test
  void countersAreCreatedOnceAndRead() throws Exception {
    try (NfacctCounters nfacct = NfacctCounters.open(scratch.ns.name)) {
      assertEquals(OptionalLong.empty(), nfacct.packets(NfacctCounters.CT_STATE_INVALID_DROPPED));
      nfacct.ensure(NfacctCounters.CT_STATE_INVALID_DROPPED);
      nfacct.ensure(NfacctCounters.CT_STATE_INVALID_DROPPED); // exists already: nothing to do
      assertEquals(OptionalLong.of(0), nfacct.packets(NfacctCounters.CT_STATE_INVALID_DROPPED));
      assertEquals(OptionalLong.empty(), nfacct.packets(NfacctCounters.LOCALHOST_NODEPORT_ACCEPTED));
    }
  }

  @ParameterizedTest
  @EnumSource(IptablesBackend.class)
  void rulesCountLocalhostNodePortPacketsAndMetricsReadThem(IptablesBackend backend) throws Exception {
    ProxierSettings settings = Fixtures.settings(IpFamily.IPv4, List.of(), clusterCidr("10.244.0.0/16"), false, true,
        null);
    IptablesProxier proxier = new IptablesProxier(settings, scratch.ns.runner, new ProxyMetrics(), new Sysctls(scratch.sysctlRoot), List::of, backend,
        () -> NfacctCounters.open(scratch.ns.name));
    proxier.privilegedInit();
    proxier.sync(state().add(svc(WEB, "10.96.12.34", 80).nodePort(30080), ready("10.244.1.5", 8080, true)).build());

    // iptables-save prints two spaces before the counter name; compare with single spaces.
    String filter = scratch.ns.out("iptables-" + backend.suffix() + "-save", "-t", "filter").replaceAll(" +", " ");
    assertTrue(filter.contains("-A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name"
        + " ct_state_invalid_dropped_pkts -j DROP"), filter);
    String nat = scratch.ns.out("iptables-" + backend.suffix() + "-save", "-t", "nat").replaceAll(" +", " ");
    assertTrue(nat.contains("-d 127.0.0.0/8 -p tcp -m comment --comment \"demo/web:http\" -m tcp --dport 30080"
        + " -m nfacct --nfacct-name localhost_nps_accepted_pkts -j KUBE-EXT-XRY76EGRC3BSCIIJ"), nat);

    try (NfacctCounters reader = NfacctCounters.open(scratch.ns.name)) {
      assertEquals(OptionalLong.of(0), reader.packets(NfacctCounters.LOCALHOST_NODEPORT_ACCEPTED));
      // One connection attempt to the localhost NodePort: its SYN passes the counting rule in nat OUTPUT
      // (and then has no route to the endpoint, which does not matter here).
      scratch.ns.exec("timeout", "2", "bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/30080");
      long counted = reader.packets(NfacctCounters.LOCALHOST_NODEPORT_ACCEPTED).orElseThrow();
      assertTrue(counted >= 1, "localhost NodePort packets counted: " + counted);
      // Traffic to another port does not count.
      scratch.ns.exec("timeout", "2", "bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/30081");
      assertEquals(counted, reader.packets(NfacctCounters.LOCALHOST_NODEPORT_ACCEPTED).orElseThrow());

      ProxyMetrics metrics = new ProxyMetrics();
      metrics.registerNfacctCounters(() -> reader.metricValue(NfacctCounters.CT_STATE_INVALID_DROPPED),
          () -> reader.metricValue(NfacctCounters.LOCALHOST_NODEPORT_ACCEPTED));
      String scrape = metrics.registry().scrape();
      assertTrue(scrape.contains("""
          # HELP kubeproxy_iptables_ct_state_invalid_dropped_packets_total [ALPHA] packets dropped by iptables to work around conntrack problems
          # TYPE kubeproxy_iptables_ct_state_invalid_dropped_packets_total counter
          kubeproxy_iptables_ct_state_invalid_dropped_packets_total 0
          """), scrape);
      assertTrue(scrape.contains("""
          # HELP kubeproxy_iptables_localhost_nodeports_accepted_packets_total [ALPHA] Number of packets accepted on nodeports of loopback interface
          # TYPE kubeproxy_iptables_localhost_nodeports_accepted_packets_total counter
          kubeproxy_iptables_localhost_nodeports_accepted_packets_total %d
          """.formatted(counted)), scrape);
    }
    proxier.cleanup();
  }

  @Test
  void withoutNfacctTheRulesHaveNoCounters() throws Exception {
    ProxierSettings settings = Fixtures.settings(IpFamily.IPv4, List.of(), clusterCidr("10.244.0.0/16"), false, true,
        null);
    IptablesProxier proxier = new IptablesProxier(settings, scratch.ns.runner, new ProxyMetrics(), new Sysctls(scratch.sysctlRoot), List::of,
        IptablesBackend.LEGACY, () -> {
          throw new java.io.IOException("no nfacct here");
        });
    proxier.sync(state().add(svc(WEB, "10.96.12.34", 80).nodePort(30080), ready("10.244.1.5", 8080, true)).build());
    String filter = scratch.ns.out("iptables-legacy-save", "-t", "filter");
    assertTrue(filter.contains("-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP"), filter);
    assertFalse(scratch.ns.out("iptables-legacy-save", "-t", "nat").contains("nfacct"));
  }
}
