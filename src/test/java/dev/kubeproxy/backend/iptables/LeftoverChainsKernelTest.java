package dev.kubeproxy.backend.iptables;

import static dev.kubeproxy.backend.iptables.Fixtures.clusterCidr;
import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.backend.netfilter.IptablesBackend;
import dev.kubeproxy.backend.netfilter.Sysctls;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.SyncResult;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Kernel;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The nat chains a v1.23 kube-proxy left behind, in a scratch namespace: a KUBE-XLB- chain (a
 * layout no later version writes) that jumps to a KUBE-SVC- chain of a Service gone since. The
 * first sync deletes both and programs the current Services, instead of failing on the deletion
 * of the referenced service chain at every sync. And in a large cluster, a service chain another
 * writer leaves after the agent's start is found by the rules check every syncPeriod and deleted by
 * the next partial sync, which reads no nat table of its own.
 */
@Kernel
class LeftoverChainsKernelTest {
  private static final ServicePortName WEB = spn("demo", "web", "http", "TCP");
  private static final String OLD_SVC = "KUBE-SVC-OLDOLDOLDOLDOLDO";
  private static final String OLD_XLB = "KUBE-XLB-OLDOLDOLDOLDOLDO";

  @RegisterExtension final ScratchNamespace.PerTest scratch = new ScratchNamespace.PerTest();

  @Test
  void anOlderKubeProxysChainsAreRemovedAndTheSyncGoesOn() throws Exception {
    CommandRunner.Result left = scratch.ns.runner.run(List.of("iptables-legacy-restore", "--noflush"), """
        *nat
        :KUBE-SERVICES - [0:0]
        :KUBE-NODEPORTS - [0:0]
        :%1$s - [0:0]
        :%2$s - [0:0]
        -A KUBE-NODEPORTS -p tcp -m tcp --dport 30123 -j %2$s
        -A %2$s -j %1$s
        -A %1$s -j RETURN
        COMMIT
        """.formatted(OLD_SVC, OLD_XLB));
    assertTrue(left.ok(), left.stderr());

    ProxierSettings settings = Fixtures.settings(IpFamily.IPv4, List.of(), clusterCidr("10.244.0.0/16"), false,
        true, null);
    IptablesProxier proxier = new IptablesProxier(settings, scratch.ns.runner, new ProxyMetrics(), new Sysctls(scratch.sysctlRoot),
        List::of, IptablesBackend.LEGACY);
    SyncResult result = proxier.sync(state().add(svc(WEB, "10.96.12.34", 80), ready("10.244.1.5", 8080, true)).build());

    assertEquals(List.of(OLD_XLB), result.removedLeftovers());
    String nat = scratch.ns.out("iptables-legacy-save", "-t", "nat");
    assertFalse(nat.contains(OLD_XLB), nat);
    assertFalse(nat.contains(OLD_SVC), nat);
    assertTrue(nat.contains("demo/web:http cluster IP"), nat);
  }

  @Test
  void inALargeClusterTheRulesCheckFindsAForeignServiceChainAndThePartialSyncDeletesIt() throws Exception {
    ProxierSettings settings = Fixtures.settings(IpFamily.IPv4, List.of(), clusterCidr("10.244.0.0/16"), false,
        true, null);
    IptablesProxier proxier = new IptablesProxier(settings, scratch.ns.runner, new ProxyMetrics(), new Sysctls(scratch.sysctlRoot),
        List::of, IptablesBackend.LEGACY);
    dev.kubeproxy.model.Endpoint[] many = new dev.kubeproxy.model.Endpoint[RulesetGenerator.LARGE_CLUSTER_ENDPOINTS_THRESHOLD + 1];
    for (int i = 0; i < many.length; i++) {
      many[i] = ready("10.244." + (i / 250) + "." + (i % 250 + 1), 8080, false);
    }
    proxier.sync(state().add(svc(WEB, "10.96.12.34", 80), many).build());
    CommandRunner.Result foreign = scratch.ns.runner.run(List.of("iptables-legacy-restore", "--noflush"), """
        *nat
        :%s - [0:0]
        COMMIT
        """.formatted(OLD_SVC));
    assertTrue(foreign.ok(), foreign.stderr());

    assertFalse(proxier.rulesDisturbed(), "a chain of its own is no disturbance of the agent's rules");
    many[0] = ready("10.244.9.9", 8080, false);
    proxier.sync(state().add(svc(WEB, "10.96.12.34", 80), many).changed(WEB).build());

    String nat = scratch.ns.out("iptables-legacy-save", "-t", "nat");
    assertFalse(nat.contains(OLD_SVC), nat);
    assertTrue(nat.contains("10.244.9.9:8080"), nat);
  }
}
