package dev.kubeproxy.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.testutil.tier.Unit;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The footprint benchmark's convergence check reads dumps in the formats the tools print (fragments of real dumps). */
@Unit
class KernelServiceEndpointsTest {
  @Test
  void iptablesFollowsServiceToEndpointChainsInTheNatTableOnly() {
    String dump = String.join("\n",
        "*filter",
        "-A KUBE-SERVICES -d 10.96.0.12/32 -p tcp -m comment --comment \"bench/svc-2:http has no endpoints\" -j REJECT",
        "COMMIT",
        "*nat",
        "-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment \"bench/svc-0:http cluster IP\" -m tcp --dport 80"
            + " -j KUBE-SVC-AAAA",
        "-A KUBE-SVC-AAAA -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-ONE",
        "-A KUBE-SVC-AAAA -j KUBE-SEP-TWO",
        "-A KUBE-SEP-ONE -s 10.64.0.1/32 -j KUBE-MARK-MASQ",
        "-A KUBE-SEP-ONE -p tcp -m tcp -j DNAT --to-destination 10.64.0.1:8080",
        "-A KUBE-SEP-TWO -p tcp -m tcp -j DNAT --to-destination 10.64.0.2:8080",
        // left over, reached by nothing
        "-A KUBE-SEP-OLD -p tcp -m tcp -j DNAT --to-destination 10.64.0.9:8080",
        "COMMIT", "");
    assertEquals(Map.of("10.96.0.10", Set.of("10.64.0.1:8080", "10.64.0.2:8080")),
        KernelServiceEndpoints.fromIptablesSave(dump));
  }

  @Test
  void nftablesTakesTheKeysTheServiceRulePicksFrom() {
    String listing = String.join("\n",
        "table ip kube-proxy {",
        "\tmap service-ips {",
        "\t\ttype ipv4_addr . inet_proto . inet_service : verdict",
        "\t\telements = { 10.96.0.10 . tcp . 80 : goto service-O6UKKYV4-bench/svc-0/tcp/http,",
        "\t\t\t     10.96.0.11 . tcp . 80 : goto service-VQYK2AJF-bench/svc-1/tcp/http,",
        "\t\t\t     10.96.0.12 . tcp . 80 : goto service-ZZZZZZZZ-bench/svc-2/tcp/http }",
        "\t}",
        "",
        "\tmap endpoint-ranges-tcp-0 {",
        "\t\ttypeof numgen random mod 1 : ip daddr . tcp dport",
        "\t\tcomment \"endpoints of up to 64 tcp services, picked by numgen at each offset\"",
        "\t\telements = { 0 : 10.64.0.0 . 8080, 1 : 10.64.0.1 . 8080, 2 : 10.64.0.9 . 8080,",
        "\t\t\t     16 : 10.64.0.14 . 8080, 17 : 10.64.0.15 . 8080 }",
        "\t}",
        "",
        "\tchain service-O6UKKYV4-bench/svc-0/tcp/http {",
        "\t\tmeta l4proto tcp dnat ip to numgen random mod 2 map @endpoint-ranges-tcp-0",
        "\t}",
        "",
        "\tchain service-VQYK2AJF-bench/svc-1/tcp/http {",
        "\t\tmeta l4proto tcp dnat ip to numgen random mod 2 offset 16 map @endpoint-ranges-tcp-0",
        "\t}",
        "",
        "\tchain service-ZZZZZZZZ-bench/svc-2/tcp/http {",
        "\t\tmeta l4proto tcp dnat to 10.64.0.28:8080",
        "\t}",
        "",
        "\tmap single-endpoint-services {",
        "\t\ttype ipv4_addr . inet_proto . inet_service : ipv4_addr . inet_service",
        "\t\telements = { 10.96.0.13 . tcp . 80 : 10.64.0.30 . 8080,",
        "\t\t\t     10.96.0.14 . tcp . 80 : 10.64.0.31 . 8080 }",
        "\t}",
        "",
        "\tchain services {",
        "\t\tdnat ip to ip daddr . meta l4proto . tcp dport map @single-endpoint-services",
        "\t\tip daddr . meta l4proto . th dport vmap @service-ips",
        "\t}",
        "}", "");
    assertEquals(Map.of("10.96.0.10", Set.of("10.64.0.0:8080", "10.64.0.1:8080"),
        "10.96.0.11", Set.of("10.64.0.14:8080", "10.64.0.15:8080"),
        "10.96.0.12", Set.of("10.64.0.28:8080"), "10.96.0.13", Set.of("10.64.0.30:8080"),
        "10.96.0.14", Set.of("10.64.0.31:8080")), KernelServiceEndpoints.fromNftList(listing));
  }
}
