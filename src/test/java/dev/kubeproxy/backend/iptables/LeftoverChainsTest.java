package dev.kubeproxy.backend.iptables;

import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A KUBE-XLB- chain of a v1.23 kube-proxy found in the nat table is flushed and deleted in the
 * same restore as the stale service chain it jumps to; chains of other owners are left alone.
 */
@Unit
class LeftoverChainsTest {
  @Test
  void anObsoleteChainIsFlushedAndDeletedWithTheStaleChainsItReferences() {
    String withLeftovers = new RulesetGenerator().generate(RulesetGeneratorTest.V4,
        state().add(svc(RulesetGeneratorTest.WEB, "10.96.12.34", 80),
            ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false)).build(), true,
        List.of("KUBE-SERVICES", "KUBE-XLB-OLDOLDOLDOLDOLDO", "KUBE-SVC-OLDOLDOLDOLDOLDO", "CNI-HOSTPORT-DNAT",
            "KUBE-SEP-NW5VICAF3Z2QABHQ")).payload();
    String expected = RulesetGeneratorTest.scenarioClusterIP()
        .replace(":KUBE-SEP-JPICTQTYOLMYNIJ7 - [0:0]\n", ":KUBE-SEP-JPICTQTYOLMYNIJ7 - [0:0]\n"
            + ":KUBE-SVC-OLDOLDOLDOLDOLDO - [0:0]\n:KUBE-XLB-OLDOLDOLDOLDOLDO - [0:0]\n")
        .replace("-A KUBE-SERVICES -m comment --comment \"kubernetes service nodeports;",
            "-X KUBE-SVC-OLDOLDOLDOLDOLDO\n-X KUBE-XLB-OLDOLDOLDOLDOLDO\n"
                + "-A KUBE-SERVICES -m comment --comment \"kubernetes service nodeports;");
    assertEquals(expected, withLeftovers);
  }

  @Test
  void onlyTheOlderLayoutsShapesAreObsolete() {
    assertTrue(ChainNames.isObsoleteChain("KUBE-XLB-OLDOLDOLDOLDOLDO"));
    assertFalse(ChainNames.isObsoleteChain("KUBE-SVC-OLDOLDOLDOLDOLDO"));
    assertFalse(ChainNames.isObsoleteChain("KUBE-SERVICES"));
    assertFalse(ChainNames.isObsoleteChain("CNI-HOSTPORT-DNAT"));
  }
}
