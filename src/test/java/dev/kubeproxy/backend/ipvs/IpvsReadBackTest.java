package dev.kubeproxy.backend.ipvs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.backend.netfilter.IptablesBackend;
import dev.kubeproxy.backend.netfilter.IptablesTool;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.model.ProgrammedRuleset;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import org.junit.jupiter.api.Test;

/** ipvs mode's whole programmed state for explain's tracer: each part in its tool's own text. */
@Unit
class IpvsReadBackTest {
  @Test
  void theKernelsStateInTheToolsTexts() throws Exception {
    FakeIpvs ipvs = new FakeIpvs();
    VirtualServer vs = new VirtualServer("10.96.0.30", "TCP", 80, "rr", VirtualServer.FLAG_PERSISTENT, 10800);
    ipvs.addVirtualServer(vs);
    ipvs.addRealServer(vs, RealServer.of("10.244.1.8", 8080, 1));
    ipvs.addRealServer(vs, RealServer.of("10.244.2.8", 8080, 0)); // draining
    VirtualServer v6 = new VirtualServer("fd00:96::10", "UDP", 53, "rr", 0, 0);
    ipvs.addVirtualServer(v6);
    ipvs.addRealServer(v6, RealServer.of("fd00:244::5", 5353, 1));
    CommandRunner runner = new CommandRunner() {
      @Override
      public Result run(List<String> argv, CharSequence stdin) {
        return switch (String.join(" ", argv)) {
          case "ipset save" -> new Result(0, "create KUBE-CLUSTER-IP hash:ip,port family inet hashsize 1024 maxelem"
              + " 65536\nadd KUBE-CLUSTER-IP 10.96.0.30,tcp:80\n", "");
          case "iptables-legacy-save -t filter" -> new Result(0, "*filter\n:KUBE-FORWARD - [0:0]\nCOMMIT\n", "");
          case "iptables-legacy-save -t nat" -> new Result(0, "*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n", "");
          case "ip -o addr show dev kube-ipvs0" -> new Result(0,
              "5: kube-ipvs0    inet 10.96.0.30/32 scope global kube-ipvs0\\       valid_lft forever\n", "");
          default -> new Result(1, "", "unexpected " + argv);
        };
      }
    };
    ProgrammedRuleset r = IpvsReadBack.fromKernel(ipvs, new IpSetTool(runner),
        new IptablesTool(runner, IpFamily.IPv4, IptablesBackend.LEGACY), new DummyInterface(runner));
    assertNull(r.error());
    assertEquals(ProgrammedRuleset.IPVS, r.form());
    assertEquals("""
        -A -t 10.96.0.30:80 -s rr -p 10800
        -a -t 10.96.0.30:80 -r 10.244.1.8:8080 -m -w 1
        -a -t 10.96.0.30:80 -r 10.244.2.8:8080 -m -w 0
        -A -u [fd00:96::10]:53 -s rr
        -a -u [fd00:96::10]:53 -r [fd00:244::5]:5353 -m -w 1
        """, r.section(ProgrammedRuleset.SECTION_IPVSADM));
    assertEquals("create KUBE-CLUSTER-IP hash:ip,port family inet hashsize 1024 maxelem 65536\n"
        + "add KUBE-CLUSTER-IP 10.96.0.30,tcp:80\n", r.section(ProgrammedRuleset.SECTION_IPSET));
    assertEquals("*filter\n:KUBE-FORWARD - [0:0]\nCOMMIT\n*nat\n:KUBE-SERVICES - [0:0]\nCOMMIT\n",
        r.section(ProgrammedRuleset.SECTION_IPTABLES));
    assertEquals("10.96.0.30\n", r.section(ProgrammedRuleset.SECTION_BOUND));
  }

  @Test
  void aToolThatFailsIsNamed() {
    CommandRunner runner = (argv, stdin) -> new CommandRunner.Result(1, "", "ipset: command not found");
    ProgrammedRuleset r = IpvsReadBack.fromKernel(new FakeIpvs(), new IpSetTool(runner),
        new IptablesTool(runner, IpFamily.IPv4, IptablesBackend.LEGACY), new DummyInterface(runner));
    assertEquals("ipset save", r.source());
    assertTrue(r.error().contains("command not found"), r.error());
  }
}
