package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Runs inside the guest (IpvsAgentGuestIT): the packaged agent, started as bin/kube-proxy starts
 * it, in ipvs mode in the network namespace "node", reading its cluster from a --manifests
 * directory. "pod1" (10.244.1.5, on this node) and "pod2" (10.244.1.6) are namespaces routed
 * through the node. Prints "== section" blocks: the agent's start-up, a ClusterIP's answer, the
 * health-check node ports of two eTP=Local LoadBalancers (one with a local endpoint, one
 * without), /metrics after syncs, the UDP conntrack entries before and after the UDP Service's
 * endpoint moved from pod1 to pod2, then `kube-proxy --cleanup` as its own process and what is
 * left after it. The jar is the first argument.
 */
public final class IpvsAgentGuestMain {
  private static final CommandRunner RUN = new ProcessCommandRunner();
  private static final Path MANIFESTS = Path.of("/tmp/manifests");
  private static final Path LOG = Path.of("/tmp/agent.log");

  public static void main(String[] args) throws Exception {
    Path jar = Path.of(args[0]);
    Path bin = jar.getParent().getParent().resolve("bin/kube-proxy");
    network();
    manifests(podEndpoint("10.244.1.5"));
    Process agent = agent(bin, jar, List.of());
    try {
      // the first sync takes 20-40 s in the emulated guest (the JVM runs ~5x slower there)
      boolean healthy = await(300, () -> nodeCurl("-s", "-o", "/dev/null", "-w", "%{http_code}",
          "http://127.0.0.1:10256/healthz"), "200"::equals);
      section("healthy", healthy + "\n");
      // /healthz answers 200 before the first sync is queued (as upstream's does): wait for a sync of each family
      boolean synced = await(300, () -> nodeCurl("-sS", "-m", "10", "http://127.0.0.1:10249/metrics"),
          m -> m.matches("(?s).*duration_seconds_count\\{ip_family=\"IPv4\"} [1-9].*")
              && m.matches("(?s).*duration_seconds_count\\{ip_family=\"IPv6\"} [1-9].*"));
      section("synced", synced + "\n");
      section("agent start-up", Files.readString(LOG).lines()
          .filter(l -> l.contains("IPVS") || l.contains("ipvs") || l.contains("ipset"))
          .map(l -> l.replaceAll("^[IWE]\\d{4} [0-9:.]+\\s+\\d+ [^]]+] ", "")).distinct()
          .reduce("", (a, l) -> a + l + "\n"));
      String clusterIP = nodeCurl("-sS", "-m", "5", "http://10.96.0.10/cgi-bin/who");
      section("clusterIP", clusterIP);
      int tries = 1;
      while (!clusterIP.startsWith("pod1 ") && tries < 20) {
        Thread.sleep(1000);
        clusterIP = nodeCurl("-sS", "-m", "5", "http://10.96.0.10/cgi-bin/who");
        tries++;
      }
      section("clusterIP tries", tries + " " + clusterIP);
      if (!clusterIP.startsWith("pod1 ")) {
        section("diagnosis", run("ip", "netns", "exec", "node", "ipvsadm", "-Ln")
            + run("ip", "netns", "exec", "node", "ipset", "list")
            + run("ip", "netns", "exec", "node", "iptables-legacy-save")
            + run("ip", "netns", "exec", "node", "iptables-nft-save")
            + run("ip", "-n", "node", "addr") + run("ip", "-n", "node", "route")
            + run("ip", "netns", "exec", "pod1", "netstat", "-ltn")
            + run("ip", "netns", "exec", "node", "netstat", "-ltn")
            + run("ip", "netns", "exec", "node", "curl", "-v", "-m", "5", "http://10.244.1.5:8080/cgi-bin/who")
            + run("ip", "netns", "exec", "node", "curl", "-v", "-m", "5", "http://10.96.0.10/cgi-bin/who"));
      }
      await(30, () -> nodeCurl("-s", "-o", "/dev/null", "-w", "%{http_code}", "-m", "5",
          "http://192.168.0.2:32000/"), "200"::equals); // the listener opens after the sync
      section("health check with local endpoint", nodeCurl("-sS", "-m", "5", "-w", "\n%{http_code}",
          "http://192.168.0.2:32000/"));
      section("health check without local endpoint", nodeCurl("-sS", "-m", "5", "-w", "\n%{http_code}",
          "http://192.168.0.2:32001/"));
      if (!s32000ok()) {
        section("health check diagnosis", run("ip", "netns", "exec", "node", "ss", "-ltnp")
            + run("ip", "netns", "exec", "node", "iptables-legacy-save", "-c")
            + run("ip", "netns", "exec", "node", "ipvsadm", "-Ln")
            + run("ip", "netns", "exec", "node", "curl", "-v", "-m", "5", "http://192.168.0.2:32000/")
            + run("ip", "netns", "exec", "node", "curl", "-v", "-m", "5", "http://127.0.0.1:32000/"));
      }

      // A UDP flow (one socket, a datagram a second) to the dns Service's only endpoint, pod1; then the
      // endpoint moves to pod2. The flow's entry towards pod1 is stale and must go (upstream
      // pkg/proxy/conntrack CleanStaleEntries; this kernel's IPVS, with expire_nodest_conn, also drops
      // the entries of a deleted real server itself, so the agent's reconcile may find nothing left),
      // and the flow's next datagram makes a new entry towards pod2.
      Process sender = new ProcessBuilder("ip", "netns", "exec", "node", "bash", "-c",
          "exec 3>/dev/udp/10.96.0.53/53; while :; do echo x >&3 2>/dev/null; sleep 1; done").start();
      await(30, IpvsAgentGuestMain::udpEntries, e -> e.contains("src=10.244.1.5"));
      section("udp conntrack with pod1", udpEntries());
      manifests(podEndpoint("10.244.1.6"));
      boolean moved = await(120, () -> run("ip", "netns", "exec", "node", "ipvsadm", "-Ln", "-u", "10.96.0.53:53"),
          v -> v.contains("10.244.1.6:5353") && !v.contains("10.244.1.5:5353"));
      section("udp endpoint moved", moved + "\n");
      await(30, IpvsAgentGuestMain::udpEntries, e -> !e.contains("src=10.244.1.5") && e.contains("src=10.244.1.6"));
      section("udp conntrack after", udpEntries());
      sender.destroy();

      // The kernel shows the moved real server (and drops its conntrack entries itself) before the
      // sync that moved it is over and counted: wait for the count of the endpoint move's sync.
      await(30, IpvsAgentGuestMain::syncMetrics,
          m -> !m.contains("kubeproxy_sync_proxy_rules_duration_seconds_count{ip_family=\"IPv4\"} 1\n"));
      section("metrics", syncMetrics());
      section("debug services", nodeCurl("-sS", "-m", "20",
          "http://127.0.0.1:10249/debug/services?service=demo/web&from=10.244.1.6&to=10.96.0.10:80&format=text"));
    } finally {
      agent.destroy();
      boolean exited = agent.waitFor(60, TimeUnit.SECONDS);
      section("agent stopped", exited + "\n");
      if (!exited) {
        agent.destroyForcibly();
      }
    }
    section("state before cleanup", state());
    long cleanupStart = System.nanoTime();
    CommandRunner.Result cleanup = RUN.run(List.of("ip", "netns", "exec", "node", "env",
        "JAVA_HOME=" + System.getProperty("java.home"), bin.toString(), "--cleanup", "-v=2"));
    section("cleanup exit", cleanup.exitCode() + "\n");
    section("cleanup seconds", (System.nanoTime() - cleanupStart) / 1_000_000_000 + "\n");
    section("after cleanup", state());
    section("agent log", Files.readString(LOG));
    section("cleanup log", cleanup.stdout() + cleanup.stderr());
  }

  /** The agent as bin/kube-proxy starts it, in the node namespace; its output goes to LOG. */
  private static Process agent(Path bin, Path jar, List<String> extra) throws Exception {
    List<String> argv = new ArrayList<>(List.of("ip", "netns", "exec", "node", bin.toString(),
        "--manifests", MANIFESTS.toString(), "--hostname-override", "node-1", "--proxy-mode", "ipvs",
        "--cluster-cidr", "10.244.0.0/16",
        "--healthz-bind-address", "127.0.0.1:10256", "--metrics-bind-address", "127.0.0.1:10249",
        // nf_conntrack_max is host-wide: left alone, as the e2e tests do
        "--conntrack-max-per-core", "0", "-v=2",
        "--vmodule=ConntrackReconciler=6")); // its "Deleting stale conntrack entry" lines
    argv.addAll(extra);
    ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(LOG.toFile());
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().put("KUBE_PROXY_JAR", jar.toString());
    return pb.start();
  }

  /** What ipvs mode programs in the node namespace: virtual servers, kube-ipvs0, ipsets, KUBE-* chains. */
  private static boolean s32000ok() throws Exception {
    return nodeCurl("-s", "-o", "/dev/null", "-w", "%{http_code}", "-m", "5", "http://192.168.0.2:32000/").equals("200");
  }

  private static String state() throws Exception {
    String ipvs = run("ip", "netns", "exec", "node", "ipvsadm", "-Sn").trim();
    return "virtual servers: " + ipvs.lines().filter(l -> l.startsWith("-A")).count() + "\n"
        + "kube-ipvs0: " + RUN.run(List.of("ip", "-n", "node", "link", "show", "kube-ipvs0")).ok() + "\n"
        + "ipsets: " + run("ip", "netns", "exec", "node", "ipset", "list", "-n").lines().count() + "\n"
        + "KUBE chains: " + (run("ip", "netns", "exec", "node", "iptables-legacy-save")
            + run("ip", "netns", "exec", "node", "ip6tables-legacy-save")
            + run("ip", "netns", "exec", "node", "iptables-nft-save")
            + run("ip", "netns", "exec", "node", "ip6tables-nft-save")).lines()
            .filter(l -> l.startsWith(":KUBE-")).count() + "\n";
  }

  private static String udpEntries() throws Exception {
    return run("ip", "netns", "exec", "node", "conntrack", "-L", "-p", "udp", "--orig-dst", "10.96.0.53").lines()
        .filter(l -> l.startsWith("udp")).map(l -> l.replaceAll("^udp\\s+\\d+\\s+\\d+\\s+", ""))
        .reduce("", (a, l) -> a + l + "\n");
  }

  private static void network() throws Exception {
    sh("""
        set -e
        mkdir -p /tmp/pod1/cgi-bin
        printf '#!/bin/sh\\necho Content-Type: text/plain\\necho\\necho pod1 $REMOTE_ADDR\\n' > /tmp/pod1/cgi-bin/who
        chmod +x /tmp/pod1/cgi-bin/who
        ip netns add node
        ip -n node link set lo up
        ip -n node link add eth0 type dummy
        ip -n node addr add 192.168.0.2/24 dev eth0
        ip -n node link set eth0 up
        i=5
        for p in pod1 pod2; do
          ip netns add $p
          ip -n node link add v$p type veth peer name eth0 netns $p
          ip -n node addr add 10.244.1.1/32 dev v$p; ip -n node link set v$p up
          ip -n $p addr add 10.244.1.$i/32 dev eth0; ip -n $p link set eth0 up; ip -n $p link set lo up
          ip -n node route add 10.244.1.$i/32 dev v$p
          ip -n $p route add 10.244.1.1/32 dev eth0; ip -n $p route add default via 10.244.1.1
          i=$((i+1))
        done
        ip netns exec pod1 busybox httpd -p 8080 -h /tmp/pod1
        """);
  }

  private static String podEndpoint(String address) {
    return "- addresses: [" + address + "]\n  conditions: {ready: true}\n  nodeName: node-1\n";
  }

  /** The cluster: the node, a TCP ClusterIP, a UDP ClusterIP with the given endpoint, two eTP=Local LBs. */
  private static void manifests(String dnsEndpoint) throws Exception {
    Files.createDirectories(MANIFESTS);
    write("00-node.yaml", """
        apiVersion: v1
        kind: Node
        metadata: {name: node-1, labels: {kubernetes.io/hostname: node-1}}
        spec: {podCIDRs: [10.244.1.0/24]}
        status: {addresses: [{type: InternalIP, address: 192.168.0.2}]}
        """);
    write("10-web.yaml", service("web", "ClusterIP", "10.96.0.10", "TCP", 80, 8080, 0, "")
        + slice("web", "TCP", 8080, podEndpoint("10.244.1.5")));
    write("20-dns.yaml", service("dns", "ClusterIP", "10.96.0.53", "UDP", 53, 5353, 0, "")
        + slice("dns", "UDP", 5353, dnsEndpoint));
    write("30-shop.yaml", service("shop", "LoadBalancer", "10.96.0.30", "TCP", 80, 8080, 30080,
        "  externalTrafficPolicy: Local\n  healthCheckNodePort: 32000\n")
        + slice("shop", "TCP", 8080, podEndpoint("10.244.1.5")));
    write("40-lonely.yaml", service("lonely", "LoadBalancer", "10.96.0.31", "TCP", 80, 8080, 30081,
        "  externalTrafficPolicy: Local\n  healthCheckNodePort: 32001\n")
        + slice("lonely", "TCP", 8080, "- addresses: [10.244.2.8]\n  conditions: {ready: true}\n  nodeName: node-2\n"));
  }

  private static String service(String name, String type, String clusterIP, String protocol, int port,
      int targetPort, int nodePort, String more) {
    return "apiVersion: v1\nkind: Service\nmetadata: {name: " + name + ", namespace: demo}\nspec:\n"
        + "  type: " + type + "\n  clusterIP: " + clusterIP + "\n  clusterIPs: [" + clusterIP + "]\n"
        + "  ipFamilies: [IPv4]\n" + more
        + "  ports:\n  - {name: p, port: " + port + ", targetPort: " + targetPort + ", protocol: " + protocol
        + (nodePort > 0 ? ", nodePort: " + nodePort : "")
        + "}\n---\n";
  }

  private static String slice(String service, String protocol, int port, String endpoints) {
    return "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\n"
        + "metadata: {name: " + service + "-1, namespace: demo, labels: {kubernetes.io/service-name: " + service
        + "}}\naddressType: IPv4\nports:\n- {name: p, port: " + port + ", protocol: " + protocol + "}\n"
        + (endpoints.isEmpty() ? "endpoints: []\n" : "endpoints:\n" + endpoints);
  }

  /** Replaces a whole file at once: the agent never reads a half-written one. */
  private static void write(String name, String text) throws Exception {
    Path tmp = MANIFESTS.resolve("." + name + ".tmp");
    Files.writeString(tmp, text);
    Files.move(tmp, MANIFESTS.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private static String nodeCurl(String... args) throws Exception {
    List<String> argv = new ArrayList<>(List.of("ip", "netns", "exec", "node", "curl"));
    argv.addAll(List.of(args));
    CommandRunner.Result r = RUN.run(argv);
    return r.stdout() + (r.ok() ? "" : "error " + r.exitCode() + ": " + r.stderr());
  }

  /** The sync metrics the test reads, one a line. */
  private static String syncMetrics() throws Exception {
    return nodeCurl("-sS", "-m", "30", "http://127.0.0.1:10249/metrics").lines()
        .filter(l -> l.startsWith("kubeproxy_sync_proxy_rules_duration_seconds_count")
            || l.startsWith("kubeproxy_sync_proxy_rules_last_timestamp_seconds")
            || l.startsWith("kubeproxy_sync_proxy_rules_endpoint_changes_total")
            || l.startsWith("kubeproxy_sync_proxy_rules_no_local_endpoints_total"))
        .reduce("", (a, l) -> a + l + "\n");
  }

  interface Probe {
    String get() throws Exception;
  }

  /** Polls until the probe's answer passes, at most seconds long; whether it did. */
  private static boolean await(int seconds, Probe probe, Predicate<String> done) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      if (done.test(probe.get())) {
        return true;
      }
      Thread.sleep(250);
    }
    return false;
  }

  private static String run(String... argv) throws Exception {
    return GuestRun.output(RUN, argv);
  }

  private static void sh(String script) throws Exception {
    GuestRun.sh(RUN, script);
  }

  private static void section(String name, String body) {
    System.out.print("== " + name + "\n" + body + (body.endsWith("\n") || body.isEmpty() ? "" : "\n"));
    System.out.flush();
  }
}
