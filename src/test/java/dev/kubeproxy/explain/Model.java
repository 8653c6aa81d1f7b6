package dev.kubeproxy.explain;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.ModelFixtures;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/** Small builders of the proxy model for the explain tests. */
final class Model {
  static final String NODE_IP = "192.168.1.10";
  static final String CLUSTER_CIDR = "10.244.0.0/16";

  private Model() {}

  static ServicePortName name(String ns, String svc, String port) {
    return ModelFixtures.spn(ns, svc, port);
  }

  /** A TCP ClusterIP service port "ns/NAME:p80" with cluster IP 10.96.0.N, port 80. */
  static ModelFixtures.Svc service(String name, int n) {
    String ns = name.contains("/") ? name.split("/")[0] : "ns";
    String svc = name.contains("/") ? name.split("/")[1] : name;
    return ModelFixtures.svc(name(ns, svc, "p80"), "10.96.0." + n, 80);
  }

  static Endpoint ready(String ip, boolean local) {
    return new Endpoint(ip, 8080, local, true, true, false, null, Endpoint.NodeHint.NONE, local ? "node-1" : "node-2",
        local ? "zone-a" : "zone-b");
  }

  static Endpoint terminating(String ip, boolean local) {
    return new Endpoint(ip, 8080, local, false, true, true, null, Endpoint.NodeHint.NONE, local ? "node-1" : "node-2",
        null);
  }

  static Endpoint zoned(String ip, boolean local, String zone) {
    return new Endpoint(ip, 8080, local, true, true, false, Set.of(zone), Endpoint.NodeHint.NONE, null, zone);
  }

  static ProxierSettings settings(LocalTrafficDetector detector, boolean masqueradeAll) {
    return new ProxierSettings(IpFamily.IPv4, "node-1", List.of(NODE_IP), List.of(), masqueradeAll, 14, true,
        detector, Duration.ofSeconds(30), Duration.ofSeconds(1), null);
  }

  static ProxierSettings settings() {
    return settings(new LocalTrafficDetector("ClusterCIDR", CLUSTER_CIDR), false);
  }
}
