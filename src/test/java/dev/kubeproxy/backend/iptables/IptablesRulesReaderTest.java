package dev.kubeproxy.backend.iptables;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import org.junit.jupiter.api.Test;

@Unit
class IptablesRulesReaderTest {
  static final ServicePortName WEB = new ServicePortName(new NamespacedName("default", "web"), "http", "TCP");

  @Test
  void theServicePortsChainsJumpsAndCommentedFilterRulesFromIptablesSave() {
    String hash = new ChainNames().serviceHash(WEB);
    String other = new ChainNames().serviceHash(new ServicePortName(new NamespacedName("default", "web2"), "http",
        "TCP"));
    String save = String.join("\n",
        "*filter",
        ":KUBE-SERVICES - [0:0]",
        "-A KUBE-SERVICES -d 10.96.0.11/32 -p tcp -m comment --comment \"default/web2:http has no endpoints\" -j REJECT",
        "-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment \"default/web:http has no local endpoints\" -j DROP",
        "COMMIT",
        "*nat",
        ":KUBE-SERVICES - [0:0]",
        ":KUBE-SEP-AAAA - [0:0]",
        ":KUBE-SEP-OTHER - [0:0]",
        ":KUBE-SVC-" + hash + " - [0:0]",
        ":KUBE-SVC-" + other + " - [0:0]",
        "-A KUBE-SEP-AAAA -s 10.244.1.5/32 -m comment --comment \"default/web:http\" -j KUBE-MARK-MASQ",
        "-A KUBE-SEP-OTHER -s 10.244.1.9/32 -m comment --comment \"default/web2:http\" -j KUBE-MARK-MASQ",
        "-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment \"default/web:http cluster IP\" -j KUBE-SVC-" + hash,
        "-A KUBE-SERVICES -d 10.96.0.11/32 -p tcp -m comment --comment \"default/web2:http cluster IP\" -j KUBE-SVC-" + other,
        "-A KUBE-SVC-" + hash + " -m comment --comment \"default/web:http -> 10.244.1.5:8080\" -j KUBE-SEP-AAAA",
        "-A KUBE-SVC-" + other + " -j KUBE-SEP-OTHER",
        "COMMIT");
    assertEquals(List.of(
        "*filter",
        "-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment \"default/web:http has no local endpoints\" -j DROP",
        "*nat",
        ":KUBE-SEP-AAAA - [0:0]",
        ":KUBE-SVC-" + hash + " - [0:0]",
        "-A KUBE-SEP-AAAA -s 10.244.1.5/32 -m comment --comment \"default/web:http\" -j KUBE-MARK-MASQ",
        "-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment \"default/web:http cluster IP\" -j KUBE-SVC-" + hash,
        "-A KUBE-SVC-" + hash + " -m comment --comment \"default/web:http -> 10.244.1.5:8080\" -j KUBE-SEP-AAAA"),
        IptablesRulesReader.select(save, WEB));
  }
}
