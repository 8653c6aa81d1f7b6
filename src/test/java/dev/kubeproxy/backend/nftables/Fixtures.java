package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Nftables;

import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.ModelFixtures;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** The nftables tests' settings, model snapshots, clock and metrics (the model's records: testutil.ModelFixtures). */
public final class Fixtures {
  private Fixtures() {}

  static ProxierSettings settings(IpFamily family) {
    return family == IpFamily.IPv4
        ? new ProxierSettings(IpFamily.IPv4, "node-a", List.of("192.168.1.10"), List.of("192.168.1.10/32"),
            false, 14, false, new LocalTrafficDetector("ClusterCIDR", "10.244.0.0/16"), Duration.ofSeconds(30),
            Duration.ofSeconds(1), null)
        : new ProxierSettings(IpFamily.IPv6, "node-a", List.of("fd00:192:168:1::10"),
            List.of("fd00:192:168:1::10/128"), false, 14, false,
            new LocalTrafficDetector("ClusterCIDR", "fd00:10:244::/64"), Duration.ofSeconds(30),
            Duration.ofSeconds(1), null);
  }

  static ProxierSettings with(ProxierSettings s, boolean masqueradeAll, LocalTrafficDetector detector,
      List<String> nodePortAddresses) {
    return new ProxierSettings(s.family(), s.nodeName(), s.nodeIPs(), nodePortAddresses, masqueradeAll,
        s.masqueradeBit(), s.localhostNodePorts(), detector, s.syncPeriod(), s.minSyncPeriod(), s.dryRunOutput());
  }

  /**
   * A model snapshot; endpoints are sorted by identity like the model does. Its states name the
   * services changed since the states taken before the last change (every state taken between two
   * changes names the same ones, as FamilyProxier does for the next sync after a failed one), and
   * every service when the node labels changed.
   */
  static final class Model {
    final Map<ServicePortName, ServicePort> services = new HashMap<>();
    final Map<ServicePortName, List<Endpoint>> endpoints = new HashMap<>();
    Map<String, String> nodeLabels = Map.of();
    List<String> serviceCIDRs = List.of();
    private final Set<dev.kubeproxy.model.NamespacedName> changed = new java.util.HashSet<>();
    private boolean stateTaken;
    private Map<String, String> labelsOfLastState = Map.of();

    private void touch(ServicePortName name) {
      if (stateTaken) {
        changed.clear();
        stateTaken = false;
      }
      changed.add(name.service());
    }

    Model put(ModelFixtures.Svc svc, Endpoint... eps) {
      ServicePort sp = svc.build();
      touch(sp.name());
      services.put(sp.name(), sp);
      endpoints.put(sp.name(), ModelFixtures.byIdentity(eps));
      return this;
    }

    Model endpoints(ServicePortName name, Endpoint... eps) {
      touch(name);
      endpoints.put(name, ModelFixtures.byIdentity(eps));
      return this;
    }

    Model remove(ServicePortName name) {
      touch(name);
      services.remove(name);
      endpoints.remove(name);
      return this;
    }

    ProxyState state() {
      if (!nodeLabels.equals(labelsOfLastState)) {
        if (stateTaken) {
          changed.clear();
        }
        services.keySet().forEach(spn -> changed.add(spn.service()));
        labelsOfLastState = nodeLabels;
      }
      stateTaken = true;
      return new ProxyState(Map.copyOf(services), Map.copyOf(endpoints), Set.copyOf(changed), nodeLabels,
          serviceCIDRs, Map.of());
    }
  }

  /** A clock the test moves by hand. */
  public static final class TestClock extends Clock {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");

    public void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  static NftablesProxier proxier(ProxierSettings settings, Nftables nft, ProxyMetrics metrics, Clock clock) {
    return new NftablesProxier(settings, new ProcessCommandRunner(), nft, metrics, clock, List::of);
  }

  /** The lines of a transaction that come after the fixed part (the per-service part). */
  static String servicePart(String transaction) {
    String marker = "flush map ip kube-proxy single-endpoint-services\n";
    String marker6 = "flush map ip6 kube-proxy single-endpoint-services\n";
    int i = transaction.indexOf(marker);
    if (i >= 0) {
      return transaction.substring(i + marker.length());
    }
    i = transaction.indexOf(marker6);
    return i >= 0 ? transaction.substring(i + marker6.length()) : transaction;
  }

  static TreeMap<String, String> sorted(Map<String, String> m) {
    return new TreeMap<>(m);
  }
}
