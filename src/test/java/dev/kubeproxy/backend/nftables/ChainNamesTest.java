package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Chain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Chain names equal upstream's (fixtures from nftables.md §4). */
@Unit
class ChainNamesTest {
  private static ServicePortName spn(String ns, String name, String port) {
    return new ServicePortName(new NamespacedName(ns, name), port, "TCP");
  }

  private static Endpoint ep(String ip, int port) {
    return new Endpoint(ip, port, false, true, true, false, Set.of());
  }

  @Test
  void serviceAndEndpointNamesMatchUpstreamFixtures() {
    assertEquals("service-ULMVA6XW-ns1/svc1/tcp/p80", ChainNames.serviceChain(spn("ns1", "svc1", "p80")));
    assertEquals("service-42NFTM6N-ns2/svc2/tcp/p80", ChainNames.serviceChain(spn("ns2", "svc2", "p80")));
    assertEquals("endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80",
        ChainNames.endpointChain(spn("ns1", "svc1", "p80"), ep("10.180.0.1", 80)));
    ServicePortName web = spn("demo", "web", "http");
    assertEquals("service-AXK6CI2C-demo/web/tcp/http", ChainNames.serviceChain(web));
    assertEquals("external-AXK6CI2C-demo/web/tcp/http", ChainNames.externalChain(web));
    assertEquals("endpoint-6UVIXZI4-demo/web/tcp/http__10.244.1.5/8080", ChainNames.endpointChain(web, ep("10.244.1.5", 8080)));
    assertEquals("affinity-22EEGIMG-demo/web/tcp/http__10.244.2.7/8080", ChainNames.affinitySet(web, ep("10.244.2.7", 8080)));
  }

  @Test
  void unnamedPortKeepsTrailingSlashAndIpv6ColonsBecomeDots() {
    assertTrue(ChainNames.serviceChain(spn("demo", "web", "")).endsWith("-demo/web/tcp/"));
    assertTrue(ChainNames.endpointChain(spn("demo", "web", "http"), ep("fd00:10:244::5", 80))
        .endsWith("-demo/web/tcp/http__fd00.10.244..5/80"));
  }

  @Test
  void longNamesAreCutTo240Characters() {
    String base = ChainNames.hashAndTruncate("x".repeat(300));
    assertEquals(240, base.length());
    assertTrue(base.endsWith("..."));
  }
}
