package dev.kubeproxy.backend.ipvs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Unit;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** pkg/proxy/ipvs/proxier.go syncService, syncEndpoint and cleanLegacyService, against an in-memory table. */
@Unit
class ServerSyncTest {
  private final FakeIpvs ipvs = new FakeIpvs();
  private final VirtualServer web = new VirtualServer("10.96.0.10", "TCP", 80, "rr", 0, 0);
  private final VirtualServer dns = new VirtualServer("10.96.0.53", "UDP", 53, "rr", 0, 0);

  private ServerSync sync(String... excludeCIDRs) {
    KubeProxyConfiguration.IPVS c = new KubeProxyConfiguration.IPVS();
    c.excludeCIDRs = List.of(excludeCIDRs);
    return new ServerSync(ipvs, IpvsSettings.of(c, IpFamily.IPv4), IpFamily.IPv4);
  }

  private static IpvsRuleset ruleset(Map<VirtualServer, List<RealServer>> servers) {
    Map<String, VirtualServer> vss = new LinkedHashMap<>();
    Map<String, List<RealServer>> rss = new LinkedHashMap<>();
    servers.forEach((vs, rs) -> {
      vss.put(vs.key(), vs);
      rss.put(vs.key(), rs);
    });
    return new IpvsRuleset(vss, rss, Map.of(), Set.of(), Map.of(), "", Set.of(), Set.of());
  }

  @Test
  void addsMissingServersAndUpdatesChangedOnes() throws Exception {
    ipvs.addVirtualServer(new VirtualServer("10.96.0.10", "TCP", 80, "sh", 0, 0));
    Set<String> active = sync().apply(ruleset(Map.of(web, List.of(RealServer.of("10.244.1.5", 8080, 1)),
        dns, List.of(RealServer.of("10.244.1.6", 53, 1)))));
    assertEquals(Set.of(web.key(), dns.key()), active);
    assertEquals(web, ipvs.services.get(web.key()), "the scheduler is updated in place");
    assertEquals(Set.of("10.244.1.5:8080"), ipvs.dests.get(web.key()).keySet());
    assertEquals(Set.of("10.244.1.6:53"), ipvs.dests.get(dns.key()).keySet());
  }

  @Test
  void aRemovedEndpointDrainsAndOneThatComesBackIsAddedAfresh() throws Exception {
    ServerSync servers = sync();
    RealServer ep = RealServer.of("10.244.1.5", 8080, 1);
    servers.apply(ruleset(Map.of(web, List.of(ep))));
    ipvs.connections(web, ep.key(), 1, 0);
    servers.apply(ruleset(Map.of(web, List.of())));
    assertEquals(0, ipvs.dests.get(web.key()).get(ep.key()).weight(), "drains at weight 0 while connected");
    assertEquals(List.of(web.key() + "/" + ep.key()), servers.draining());

    servers.apply(ruleset(Map.of(web, List.of(ep))));
    assertEquals(1, ipvs.dests.get(web.key()).get(ep.key()).weight());
    assertEquals(List.of(), servers.draining());
    assertEquals(List.of("delete " + web + " " + ep, "add " + web + " " + ep + " weight 1"),
        ipvs.calls.subList(ipvs.calls.size() - 2, ipvs.calls.size()));
  }

  @Test
  void drainingServersAreRetriedOncePerMinute() throws Exception {
    ServerSync servers = sync();
    RealServer ep = RealServer.of("10.244.1.5", 8080, 1);
    servers.apply(ruleset(Map.of(web, List.of(ep))));
    ipvs.connections(web, ep.key(), 0, 1);
    servers.apply(ruleset(Map.of(web, List.of())));
    Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
    servers.retryDrainingIfDue(t0);
    ipvs.connections(web, ep.key(), 0, 0);
    servers.retryDrainingIfDue(t0.plusSeconds(59));
    assertEquals(List.of(web.key() + "/" + ep.key()), servers.draining(), "not due yet");
    servers.retryDrainingIfDue(t0.plusSeconds(60));
    assertEquals(List.of(), servers.draining());
    assertEquals(Set.of(), ipvs.dests.get(web.key()).keySet());
  }

  @Test
  void onlyTheInitialSyncResetsWeightsLeftByAnEarlierRun() throws Exception {
    ipvs.addVirtualServer(web);
    ipvs.addRealServer(web, RealServer.of("10.244.1.5", 8080, 0));
    ServerSync servers = sync();
    Set<String> active = servers.apply(ruleset(Map.of(web, List.of(RealServer.of("10.244.1.5", 8080, 1)))));
    assertEquals(1, ipvs.dests.get(web.key()).get("10.244.1.5:8080").weight());
    servers.deleteUnused(active);

    ipvs.updateRealServer(web, RealServer.of("10.244.1.5", 8080, 0));
    servers.apply(ruleset(Map.of(web, List.of(RealServer.of("10.244.1.5", 8080, 1)))));
    assertEquals(0, ipvs.dests.get(web.key()).get("10.244.1.5:8080").weight());
  }

  @Test
  void unusedVirtualServersOfThisFamilyAreDeletedOutsideExcludeCIDRs() throws Exception {
    VirtualServer excluded = new VirtualServer("172.16.0.1", "TCP", 80, "rr", 0, 0);
    VirtualServer otherFamily = new VirtualServer("fd00::1", "TCP", 80, "rr", 0, 0);
    ipvs.addVirtualServer(excluded);
    ipvs.addVirtualServer(otherFamily);
    ipvs.addVirtualServer(dns);
    ServerSync servers = sync("172.16.0.0/12");
    servers.deleteUnused(servers.apply(ruleset(Map.of(web, List.of()))));
    assertEquals(Set.of(excluded.key(), otherFamily.key(), web.key()), ipvs.services.keySet());
  }
}
