package dev.kubeproxy.backend.ipvs;

import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.svc;

import dev.kubeproxy.testutil.ModelFixtures;
import dev.kubeproxy.backend.netfilter.BackendSelector;
import dev.kubeproxy.config.FeatureGates;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePortName;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs inside the guest (IpvsProxierGuestIT): the ipvs proxier of both families syncs Services
 * against Debian's kernel, and real traffic goes through them. The guest's own namespace is the
 * node (192.168.0.2 and fd00:1::2 towards an outside client); "pod1" (local endpoint, 10.244.1.5)
 * and "pod2" (10.244.1.6, an endpoint the Services see on another node) are namespaces with /32
 * addresses routed through the node, as a routed CNI does, each an HTTP server whose CGI answers
 * "NAME CLIENT-ADDRESS"; "pod3" (10.244.1.7) is a client pod. Prints "== section" blocks of
 * answers and kernel state.
 */
public final class IpvsProxierGuestMain {
  private static final CommandRunner RUN = new ProcessCommandRunner();

  static final ServicePortName WEB = spn("demo", "web", "http", "TCP");
  static final ServicePortName STICKY = spn("demo", "sticky", "http", "TCP");
  static final ServicePortName LOCAL = spn("demo", "local", "http", "TCP");
  static final ServicePortName EMPTY = spn("demo", "empty", "http", "TCP");
  static final ServicePortName WEB6 = spn("demo", "web6", "http", "TCP");

  public static void main(String[] args) throws Exception {
    network();
    IpvsProxier.Host host = new IpvsProxier.Host(RUN, new ProxyMetrics(), Clock.systemUTC(), new BackendSelector(RUN));
    IpvsProxier v4 = new IpvsProxier(settings(IpFamily.IPv4, "192.168.0.2"), IpvsSettings.of(ipvsConfig(), IpFamily.IPv4),
        host);
    IpvsProxier v6 = new IpvsProxier(settings(IpFamily.IPv6, "fd00:1::2"), IpvsSettings.of(ipvsConfig(), IpFamily.IPv6),
        host);
    v4.privilegedInit();
    v6.privilegedInit();

    long start = System.nanoTime();
    v4.sync(stateV4(true));
    v6.sync(stateV6());
    section("first sync ms", (System.nanoTime() - start) / 1_000_000 + "\n");
    section("ipvsadm", run("ipvsadm", "-Ln"));

    section("clusterIP from node", answers("curl", "10.96.0.10", 6));
    section("clusterIP from pod3", answers("ip netns exec pod3 curl", "10.96.0.10", 6));
    section("hairpin pod1 to itself", hairpin());
    section("nodePort from outside", answers("ip netns exec client curl", "192.168.0.2:30080", 4));
    section("sticky", answers("curl", "10.96.0.11", 6));
    section("eTP Local nodePort from outside", answers("ip netns exec client curl", "192.168.0.2:30081", 3));
    section("no endpoints", curlError("10.96.0.12"));
    section("ipv6 clusterIP from node", answers("curl", "[fd00:96::10]", 4));
    section("kube-ipvs0", run("ip", "-o", "addr", "show", "dev", "kube-ipvs0").replaceAll("(?m)^\\d+: kube-ipvs0\\s+", "")
        .replaceAll("\\\\.*", ""));

    // pod2 leaves the web Service while a connection to it is open: it drains at weight 0, then the
    // next sync after the connection is gone removes it.
    Process open = holdConnectionTo("10.96.0.13", "pod2");
    v4.sync(stateV4(false));
    section("after pod2 left web", run("ipvsadm", "-Ln", "-t", "10.96.0.10:80") + run("ipvsadm", "-Ln", "-t",
        "10.96.0.13:80"));
    section("web after pod2 left", answers("curl", "10.96.0.10", 4));
    open.destroyForcibly();

    v4.cleanup();
    v6.cleanup();
    section("after cleanup", "virtual servers: " + run("ipvsadm", "-Sn").trim().split("\n").length
        + " (" + run("ipvsadm", "-Sn").trim() + ")\n"
        + "kube-ipvs0: " + RUN.run(List.of("ip", "link", "show", "kube-ipvs0")).ok() + "\n"
        + "sets: " + run("ipset", "list", "-n").trim() + "\n"
        + "ipvs chains: " + (run("iptables-save") + run("ip6tables-save")).lines()
            .filter(l -> l.startsWith(":KUBE-")).toList() + "\n");
  }

  private static dev.kubeproxy.config.KubeProxyConfiguration.IPVS ipvsConfig() {
    return new dev.kubeproxy.config.KubeProxyConfiguration.IPVS();
  }

  private static ProxierSettings settings(IpFamily family, String nodeIP) {
    return new ProxierSettings(family, "node-1", List.of(nodeIP), List.of(), false, 14, false,
        new LocalTrafficDetector("ClusterCIDR", family == IpFamily.IPv4 ? "10.244.0.0/16" : "fd00:244::/64"),
        Duration.ofSeconds(30), Duration.ofSeconds(1), null);
  }

  /** withPod2: pod2 still serves web (the first sync) or has left it (the second). */
  static ProxyState stateV4(boolean withPod2) {
    ModelFixtures.StateBuilder s = ModelFixtures.state();
    if (withPod2) {
      s.add(svc(WEB, "10.96.0.10", 80).nodePort(30080), ready("10.244.1.5", 8080, true), ready("10.244.1.6", 8080, false));
    } else {
      s.add(svc(WEB, "10.96.0.10", 80).nodePort(30080), ready("10.244.1.5", 8080, true));
    }
    s.add(svc(STICKY, "10.96.0.11", 80).affinity(10800), ready("10.244.1.5", 8080, true),
        ready("10.244.1.6", 8080, false));
    s.add(svc(LOCAL, "10.96.0.14", 80).nodePort(30081).etpLocal(30999), ready("10.244.1.5", 8080, true),
        ready("10.244.1.6", 8080, false));
    s.add(svc(EMPTY, "10.96.0.12", 80));
    // a raw TCP service whose only endpoint is pod2's holding server; it leaves with pod2
    ServicePortName hold = spn("demo", "hold", "tcp", "TCP");
    if (withPod2) {
      s.add(svc(hold, "10.96.0.13", 80), ready("10.244.1.6", 9000, false));
    } else {
      s.add(svc(hold, "10.96.0.13", 80));
    }
    return s.build();
  }

  static ProxyState stateV6() {
    return ModelFixtures.state().add(svc(WEB6, "fd00:96::10", 80), ready("fd00:244::5", 8080, true)).build();
  }

  private static void network() throws Exception {
    sh("""
        set -e
        mkdir -p /tmp/pod1/cgi-bin /tmp/pod2/cgi-bin
        for p in pod1 pod2; do
          printf '#!/bin/sh\\necho Content-Type: text/plain\\necho\\necho %s $REMOTE_ADDR\\n' $p > /tmp/$p/cgi-bin/who
          chmod +x /tmp/$p/cgi-bin/who
        done
        i=5
        for p in pod1 pod2 pod3; do
          ip netns add $p
          ip link add v$p type veth peer name eth0 netns $p
          ip addr add 10.244.1.1/32 dev v$p; ip link set v$p up
          ip -n $p addr add 10.244.1.$i/32 dev eth0; ip -n $p link set eth0 up; ip -n $p link set lo up
          ip route add 10.244.1.$i/32 dev v$p
          ip -n $p route add 10.244.1.1/32 dev eth0; ip -n $p route add default via 10.244.1.1
          i=$((i+1))
        done
        ip -n pod1 addr add fd00:244::5/128 dev eth0 nodad
        ip addr add fd00:244::1/128 dev vpod1 nodad
        ip route add fd00:244::5/128 dev vpod1
        ip -n pod1 route add fd00:244::1/128 dev eth0; ip -n pod1 -6 route add default via fd00:244::1
        ip netns add client
        ip link add vclient type veth peer name eth0 netns client
        ip addr add 192.168.0.2/24 dev vclient; ip addr add fd00:1::2/64 dev vclient nodad; ip link set vclient up
        ip -n client addr add 192.168.0.100/24 dev eth0; ip -n client addr add fd00:1::100/64 dev eth0 nodad
        ip -n client link set eth0 up; ip -n client link set lo up
        ip -n client route add default via 192.168.0.2
        ip link set lo up
        sysctl -qw net.ipv6.conf.all.forwarding=1
        ip netns exec pod1 busybox httpd -p 8080 -h /tmp/pod1
        ip netns exec pod1 busybox httpd -p [::]:8080 -h /tmp/pod1 2>/dev/null || true
        ip netns exec pod2 busybox httpd -p 8080 -h /tmp/pod2
        """);
  }

  /** Answers of n requests to the service's /cgi-bin/who, counted: "pod1 10.244.1.1 x3". */
  private static String answers(String client, String target, int n) throws Exception {
    Map<String, Integer> counts = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      CommandRunner.Result r = RUN.run(List.of("sh", "-c", client + " -sS -m 3 http://" + target + "/cgi-bin/who"));
      String answer = r.ok() ? r.stdout().trim() : "error: " + r.stderr().trim();
      counts.merge(answer, 1, Integer::sum);
    }
    StringBuilder out = new StringBuilder();
    counts.forEach((a, c) -> out.append(a).append(" x").append(c).append('\n'));
    return out.toString();
  }

  /** pod1 asks the web Service until IPVS picks pod1 itself: the answer must come back (hairpin SNAT). */
  private static String hairpin() throws Exception {
    for (int i = 0; i < 10; i++) {
      CommandRunner.Result r = RUN.run(List.of("sh", "-c",
          "ip netns exec pod1 curl -sS -m 3 http://10.96.0.10/cgi-bin/who"));
      if (r.ok() && r.stdout().startsWith("pod1 ")) {
        return r.stdout();
      }
    }
    return "never answered by pod1 itself\n";
  }

  private static String curlError(String target) throws Exception {
    CommandRunner.Result r = RUN.run(List.of("curl", "-sS", "-m", "3", "http://" + target + "/"));
    return "exit " + r.exitCode() + "\n";
  }

  /** A TCP connection from the node through the service to pod2:9000, held open. */
  private static Process holdConnectionTo(String clusterIP, String pod) throws Exception {
    new ProcessBuilder("ip", "netns", "exec", pod, "busybox", "nc", "-l", "-p", "9000").start();
    Thread.sleep(500);
    Process p = new ProcessBuilder("sh", "-c", "sleep 300 | busybox nc " + clusterIP + " 80").start();
    for (int i = 0; i < 25; i++) {
      Thread.sleep(200);
      if (run("ipvsadm", "-Ln", "-t", clusterIP + ":80").contains("Masq    1      1")) {
        break;
      }
    }
    return p;
  }

  private static String run(String... argv) throws Exception {
    return GuestRun.output(RUN, argv);
  }

  private static void sh(String script) throws Exception {
    GuestRun.sh(RUN, script);
  }

  private static void section(String name, String body) {
    System.out.print("== " + name + "\n" + body);
    System.out.flush();
  }
}
