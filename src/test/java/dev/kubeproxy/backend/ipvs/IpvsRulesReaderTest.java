package dev.kubeproxy.backend.ipvs;

import static dev.kubeproxy.backend.ipvs.Fixtures.options;
import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProgrammedRules;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.backend.netfilter.IptablesBackend;
import dev.kubeproxy.backend.netfilter.IptablesTool;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import org.junit.jupiter.api.Test;

/** /debug/services' "programmed now" in ipvs mode: the port's virtual servers, ipset entries and set-matching rules. */
@Unit
class IpvsRulesReaderTest {
  static final ServicePortName SHOP = spn("shop", "shop", "http", "TCP");
  static final ServicePortName WEB = spn("demo", "web", "http", "TCP");
  static final Endpoint LOCAL = ready("10.244.1.8", 8080, true);
  static final Endpoint REMOTE = ready("10.244.2.8", 8080, false);

  static ProxyState twoServices() {
    return state()
        .add(svc(SHOP, "10.96.0.30", 80).nodePort(30080).loadBalancer("192.168.200.100").sourceRanges("192.168.200.0/24")
            .etpLocal(32000), LOCAL, REMOTE)
        .add(svc(WEB, "10.96.0.10", 80).nodePort(30081), ready("10.244.1.9", 8080, true))
        .build();
  }

  static ServicePort shop(ProxyState s) {
    return s.services().get(SHOP);
  }

  @Test
  void dryRunStateOfThePortOnly() {
    ProxyState s = twoServices();
    IpvsRuleset last = new IpvsRulesetGenerator().generate(options(), s);
    ProgrammedRules r = new IpvsRulesReader(shop(s), s.endpointsOf(SHOP)).fromDryRun(last);
    assertNull(r.error());
    assertEquals(List.of(
        "ipvs TCP 10.96.0.30:80 rr",
        "ipvs   -> 10.244.1.8:8080 Masq weight 1 active 0 inactive 0",
        "ipvs   -> 10.244.2.8:8080 Masq weight 1 active 0 inactive 0",
        "ipvs TCP 192.168.0.2:30080 rr",
        "ipvs   -> 10.244.1.8:8080 Masq weight 1 active 0 inactive 0",
        "ipvs TCP 192.168.200.100:80 rr",
        "ipvs   -> 10.244.1.8:8080 Masq weight 1 active 0 inactive 0",
        "ipset KUBE-LOOP-BACK: 10.244.1.8,tcp:8080,10.244.1.8",
        "ipset KUBE-CLUSTER-IP: 10.96.0.30,tcp:80",
        "ipset KUBE-LOAD-BALANCER: 192.168.200.100,tcp:80",
        "ipset KUBE-LOAD-BALANCER-FW: 192.168.200.100,tcp:80",
        "ipset KUBE-LOAD-BALANCER-LOCAL: 192.168.200.100,tcp:80",
        "ipset KUBE-LOAD-BALANCER-SOURCE-CIDR: 192.168.200.100,tcp:80,192.168.200.0/24",
        "ipset KUBE-NODE-PORT-TCP: 30080",
        "ipset KUBE-NODE-PORT-LOCAL-TCP: 30080",
        "ipset KUBE-HEALTH-CHECK-NODE-PORT: 32000",
        "ipset KUBE-IPVS-IPS: 10.96.0.30",
        "ipset KUBE-IPVS-IPS: 192.168.200.100"), r.lines().stream().filter(l -> !l.startsWith("-A ")
            && !l.startsWith("*")).toList());
    // the shared chains' rules that match those sets (web's own entries are in some of the same sets)
    List<String> rules = r.lines().stream().filter(l -> l.startsWith("-A ") || l.startsWith("*")).toList();
    assertEquals("*nat", rules.get(0));
    assertTrue(rules.contains("-A KUBE-NODE-PORT -p tcp -m comment --comment \"Kubernetes nodeport TCP port with"
        + " externalTrafficPolicy=local\" -m set --match-set KUBE-NODE-PORT-LOCAL-TCP dst -j RETURN"), rules.toString());
    assertTrue(rules.contains("*filter"), rules.toString());
    assertTrue(rules.stream().allMatch(l -> l.startsWith("*") || l.contains("--match-set ")), rules.toString());
  }

  @Test
  void kernelStateReadBackThroughNetlinkIpsetAndIptablesSave() throws Exception {
    ProxyState s = twoServices();
    FakeIpvs ipvs = new FakeIpvs();
    VirtualServer vs = new VirtualServer("10.96.0.30", "TCP", 80, "rr", 0, 0);
    ipvs.addVirtualServer(vs);
    ipvs.addRealServer(vs, RealServer.of("10.244.1.8", 8080, 1));
    ipvs.addRealServer(vs, RealServer.of("10.244.2.8", 8080, 0)); // draining
    VirtualServer other = new VirtualServer("10.96.0.10", "TCP", 80, "rr", 0, 0);
    ipvs.addVirtualServer(other);
    ipvs.addRealServer(other, RealServer.of("10.244.1.9", 8080, 1));
    CommandRunner runner = new CommandRunner() {
      @Override
      public Result run(List<String> argv, CharSequence stdin) {
        return switch (String.join(" ", argv)) {
          case "ipset save" -> new Result(0, """
              create KUBE-CLUSTER-IP hash:ip,port family inet hashsize 1024 maxelem 65536
              add KUBE-CLUSTER-IP 10.96.0.30,tcp:80
              add KUBE-CLUSTER-IP 10.96.0.10,tcp:80
              create KUBE-NODE-PORT-TCP bitmap:port range 0-65535
              add KUBE-NODE-PORT-TCP 30081
              """, "");
          case "iptables-legacy-save -t filter" -> new Result(0, "*filter\n:KUBE-FORWARD - [0:0]\nCOMMIT\n", "");
          case "iptables-legacy-save -t nat" -> new Result(0, """
              *nat
              :KUBE-SERVICES - [0:0]
              -A KUBE-SERVICES -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT
              -A KUBE-NODE-PORT -p tcp -m set --match-set KUBE-NODE-PORT-TCP dst -j KUBE-MARK-MASQ
              COMMIT
              """, "");
          default -> new Result(1, "", "unexpected " + argv);
        };
      }
    };
    ProgrammedRules r = new IpvsRulesReader(shop(s), s.endpointsOf(SHOP)).fromKernel(ipvs, new IpSetTool(runner),
        new IptablesTool(runner, IpFamily.IPv4, IptablesBackend.LEGACY));
    assertEquals("IPVS over netlink, ipset save, iptables-legacy-save (filter and nat)", r.source());
    assertEquals(List.of(
        "ipvs TCP 10.96.0.30:80 rr",
        "ipvs   -> 10.244.1.8:8080 Masq weight 1 active 0 inactive 0",
        "ipvs   -> 10.244.2.8:8080 Masq weight 0 active 0 inactive 0",
        "ipset KUBE-CLUSTER-IP: 10.96.0.30,tcp:80",
        "*nat",
        "-A KUBE-SERVICES -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT"), r.lines());
  }
}
