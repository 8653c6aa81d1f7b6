package dev.kubeproxy.e2e;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.testutil.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The test cluster in network namespaces, all under one random name prefix (kp-e2e-XXXXXX-):
 *
 * <pre>
 *   client-a 192.168.200.20 ─┐
 *   client-b 192.168.200.21 ─┤  "lan" namespace: a bridge, the node network 192.168.200.0/24
 *   node     192.168.200.10 ─┤    node ── veth per pod ── pod-a 10.244.1.2, pod-b .3, pod-c .4
 *   rnode    192.168.200.11 ─┘    rnode ── veth ── rpod 10.244.2.2
 * </pre>
 *
 * plus the same in IPv6. Pods sit on routed veths (no bridge on the node), so every packet to
 * or from a pod crosses the node's netfilter, as with most CNI plugins. Nothing links to the
 * root namespace and there is no route out: Service IPs exist only as rules in "node". The
 * pods and rpod run {@link EchoMain} on TCP {@value #TCP_PORT}, {@value #TCP_PORT2} and UDP
 * {@value #UDP_PORT}; the clients and the node run it as probe clients.
 */
public final class Topology implements AutoCloseable {
  public static final int TCP_PORT = 8080;
  public static final int TCP_PORT2 = 8443;
  public static final int UDP_PORT = 5353;
  public static final String NAME_PREFIX = "kp-e2e-";
  public static final String[] LOCAL_PODS = {"pod-a", "pod-b", "pod-c"};
  public static final String REMOTE_POD = "rpod";

  private final String prefix;
  private final Path logDir;
  private final Map<String, Netns> namespaces = new LinkedHashMap<>();
  private final Map<String, NetnsHost> hosts = new LinkedHashMap<>();
  private final Thread shutdownHook;
  private volatile boolean closed;

  private Topology(String prefix, Path logDir) {
    this.prefix = prefix;
    this.logDir = logDir;
    this.shutdownHook = new Thread(this::destroy, "e2e-topology-cleanup");
  }

  /** Builds the whole topology; on any failure it removes what it made and rethrows. */
  public static Topology create(String label) throws IOException {
    String id = UUID.randomUUID().toString().substring(0, 6);
    Path logDir = Path.of("target", "e2e-logs", label + "-" + id).toAbsolutePath();
    Files.createDirectories(logDir);
    removeAbandonedNamespaces();
    Topology t = new Topology(NAME_PREFIX + id + "-", logDir);
    Runtime.getRuntime().addShutdownHook(t.shutdownHook);
    try {
      t.build();
      return t;
    } catch (IOException | RuntimeException e) {
      t.close();
      throw e;
    }
  }

  public Netns ns(String role) {
    Netns n = namespaces.get(role);
    if (n == null) {
      throw new IllegalArgumentException("no namespace " + role);
    }
    return n;
  }

  public Netns node() {
    return ns("node");
  }

  public NetnsHost host(String role) {
    NetnsHost h = hosts.get(role);
    if (h == null) {
      throw new IllegalArgumentException("no echo process in " + role);
    }
    return h;
  }

  public Path logDir() {
    return logDir;
  }

  /**
   * The xtables lock of the node namespace. iptables serialises on /run/xtables.lock, one file
   * for the whole host although rules live per namespace; on a machine shared with other
   * iptables users that lock can be held for seconds and make syncs fail. The node's own lock
   * file (given to the agent and to the tests' commands in "node" as XTABLES_LOCKFILE) makes
   * the node behave like a real host of its own.
   */
  public Path xtablesLock() {
    return logDir.resolve("node-xtables.lock");
  }

  private void build() throws IOException {
    for (String role : List.of("lan", "node", "rnode", "client-a", "client-b", "pod-a", "pod-b", "pod-c", "rpod")) {
      String name = prefix + role;
      CommandRunner.Result r = new ProcessCommandRunner().run(List.of("ip", "netns", "add", name));
      if (!r.ok()) {
        throw new IllegalStateException("ip netns add " + name + " failed: " + r.stderr());
      }
      Netns n = new Netns(name, role.equals("node") ? xtablesLock() : null);
      namespaces.put(role, n);
      n.must("ip", "link", "set", "lo", "up");
    }
    Netns lan = ns("lan");
    lan.must("ip", "link", "add", "br0", "type", "bridge");
    lan.must("ip", "link", "set", "br0", "up");
    // Bridged frames on the switch need no netfilter (this namespace has no rules anyway).
    lan.exec("sysctl", "-qw", "net.bridge.bridge-nf-call-iptables=0");
    lan.exec("sysctl", "-qw", "net.bridge.bridge-nf-call-ip6tables=0");

    Map<String, Integer> lanHosts = Map.of("node", 10, "rnode", 11, "client-a", 20, "client-b", 21);
    for (var e : List.of("node", "rnode", "client-a", "client-b")) {
      Netns member = ns(e);
      String port = "l-" + e.replace("client-", "c");
      lan.must("ip", "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", member.name());
      lan.must("ip", "link", "set", port, "master", "br0");
      lan.must("ip", "link", "set", port, "up");
      for (Family f : Family.values()) {
        String ip = switch (lanHosts.get(e)) {
          case 10 -> f.nodeIp();
          case 11 -> f.remoteNodeIp();
          case 20 -> f.clientAIp();
          default -> f.clientBIp();
        };
        addAddress(member, f, ip + f.nodeNetPrefixLen(), "eth0");
      }
      member.must("ip", "link", "set", "eth0", "up");
    }

    Netns node = node();
    Netns rnode = ns("rnode");
    for (Netns router : List.of(node, rnode)) {
      router.must("sysctl", "-qw", "net.ipv4.ip_forward=1");
      router.must("sysctl", "-qw", "net.ipv6.conf.all.forwarding=1");
      router.must("sysctl", "-qw", "net.ipv4.conf.all.rp_filter=0");
      router.must("sysctl", "-qw", "net.ipv4.conf.default.rp_filter=0");
    }
    // Long UDP conntrack timeouts on the node: a stale entry must disappear because the agent
    // deleted it, not because it expired while the test waited.
    node.exec("sysctl", "-qw", "net.netfilter.nf_conntrack_udp_timeout=600");
    node.exec("sysctl", "-qw", "net.netfilter.nf_conntrack_udp_timeout_stream=600");

    // node-1's pods: one routed veth each; the node answers as the gateway on every veth.
    for (int i = 0; i < LOCAL_PODS.length; i++) {
      Netns pod = ns(LOCAL_PODS[i]);
      String veth = "v" + LOCAL_PODS[i].substring(4);
      node.must("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", pod.name());
      node.must("ip", "link", "set", veth, "up");
      pod.must("ip", "link", "set", "eth0", "up");
      for (Family f : Family.values()) {
        addAddress(node, f, f.podGateway() + f.hostLength(), veth);
        node.must("ip", f.ipFlag(), "route", "add", f.localPodIp(i) + f.hostLength(), "dev", veth);
        addAddress(pod, f, f.localPodIp(i) + f.hostLength(), "eth0");
        pod.must("ip", f.ipFlag(), "route", "add", f.podGateway(), "dev", "eth0");
        pod.must("ip", f.ipFlag(), "route", "add", "default", "via", f.podGateway(), "dev", "eth0");
      }
    }

    // The remote node and its pod, reached from node-1 through the node network.
    Netns rpod = ns(REMOTE_POD);
    rnode.must("ip", "link", "add", "vr", "type", "veth", "peer", "name", "eth0", "netns", rpod.name());
    rnode.must("ip", "link", "set", "vr", "up");
    rpod.must("ip", "link", "set", "eth0", "up");
    for (Family f : Family.values()) {
      addAddress(rnode, f, f.remoteGateway() + f.remotePodPrefixLen(), "vr");
      addAddress(rpod, f, f.remotePodIp() + f.remotePodPrefixLen(), "eth0");
      rpod.must("ip", f.ipFlag(), "route", "add", "default", "via", f.remoteGateway());
      rnode.must("ip", f.ipFlag(), "route", "add", f.localPodSubnet(), "via", f.nodeIp());
      node.must("ip", f.ipFlag(), "route", "add", f.remotePodSubnet(), "via", f.remoteNodeIp());
      // Node-originated Service traffic needs a route before DNAT rewrites it: keep it on the
      // test network (like a default route would on a real node, but going nowhere else).
      node.must("ip", f.ipFlag(), "route", "add", f.serviceCidr(), "dev", "eth0");
      for (String client : List.of("client-a", "client-b")) {
        ns(client).must("ip", f.ipFlag(), "route", "add", f.externalRange(), "via", f.nodeIp());
      }
    }

    // Echo processes: backends in the pods, probe clients everywhere else that sends traffic.
    List<Integer> tcp = List.of(TCP_PORT, TCP_PORT2);
    List<Integer> udp = List.of(UDP_PORT);
    List<String> roles = new ArrayList<>(List.of(LOCAL_PODS));
    roles.add(REMOTE_POD);
    for (String role : roles) {
      hosts.put(role, NetnsHost.start(ns(role).name(), role, tcp, udp, logDir.resolve(role + ".log")));
    }
    for (String role : List.of("node", "client-a", "client-b")) {
      hosts.put(role, NetnsHost.start(ns(role).name(), role, List.of(), List.of(), logDir.resolve(role + ".log")));
    }
    // Started together, awaited together: JVM start-up dominates the topology's build time.
    for (NetnsHost h : hosts.values()) {
      h.awaitReady();
    }
    // The interfaces' IPv6 link-local addresses still run duplicate address detection for a second
    // or two, during which forwarding across the node network can stall: ready when routing works.
    for (Family f : Family.values()) {
      Await.until(f + " pod-a -> rpod across the node network", java.time.Duration.ofSeconds(20),
          () -> hosts.get("pod-a").tcp(f.remotePodIp(), TCP_PORT), Answer::ok);
    }
  }

  /**
   * Deletes kp-e2e- namespaces left by a test JVM that was killed before its cleanup ran: only
   * those older than an hour with no process inside, so a concurrent run is never touched.
   */
  private static void removeAbandonedNamespaces() {
    Path dir = Path.of("/run/netns");
    if (!Files.isDirectory(dir)) {
      return;
    }
    CommandRunner root = new ProcessCommandRunner();
    long cutoff = System.currentTimeMillis() - 3_600_000L;
    try (var names = Files.list(dir)) {
      for (Path p : names.filter(p -> p.getFileName().toString().startsWith(NAME_PREFIX)).toList()) {
        String name = p.getFileName().toString();
        if (Files.getLastModifiedTime(p).toMillis() < cutoff
            && root.run(List.of("ip", "netns", "pids", name)).stdout().isBlank()) {
          root.run(List.of("ip", "netns", "delete", name));
        }
      }
    } catch (IOException e) {
      System.err.println("could not look for abandoned test namespaces: " + e);
    }
  }

  /**
   * Brings the node namespace back to "no proxy rules": flushes every nftables table (which
   * includes the iptables-nft tables), every legacy iptables/ip6tables table and the conntrack
   * table. Run before each agent starts, so one class's leftovers never reach the next.
   */
  public void resetNode() {
    Netns node = node();
    node.exec("nft", "flush", "ruleset");
    for (String tool : List.of("iptables-legacy", "ip6tables-legacy")) {
      if (Requirements.onPath(tool)) {
        for (String table : List.of("filter", "nat", "mangle", "raw")) {
          node.exec(tool, "-w", "5", "-t", table, "-F");
          node.exec(tool, "-w", "5", "-t", table, "-X");
        }
      }
    }
    node.exec("conntrack", "-F");
    node.exec("conntrack", "-F", "-f", "ipv6");
  }

  /** A fresh folder for one test class's files (agent log, manifests, PATH pins). */
  public Path classDir(String name) throws IOException {
    return Files.createDirectories(logDir.resolve(name));
  }

  private static void addAddress(Netns ns, Family f, String cidr, String dev) {
    if (f.v6()) {
      ns.must("ip", "-6", "addr", "add", cidr, "dev", dev, "nodad");
    } else {
      ns.must("ip", "-4", "addr", "add", cidr, "dev", dev);
    }
  }

  /** Stops the echo processes and every process left in the namespaces, then deletes them. */
  @Override
  public void close() {
    destroy();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // already shutting down: the hook runs destroy() itself
    }
  }

  private synchronized void destroy() {
    if (closed) {
      return;
    }
    closed = true;
    hosts.values().forEach(NetnsHost::close);
    CommandRunner root = new ProcessCommandRunner();
    for (Netns n : namespaces.values()) {
      try {
        // Anything still running in a namespace we made was started by this test (an agent).
        String pids = root.run(List.of("ip", "netns", "pids", n.name())).stdout().trim();
        for (String pid : pids.split("\\s+")) {
          if (!pid.isEmpty()) {
            root.run(List.of("kill", "-9", pid));
          }
        }
        root.run(List.of("ip", "netns", "delete", n.name()));
      } catch (IOException e) {
        System.err.println("cleanup of netns " + n.name() + " failed: " + e);
      }
    }
  }
}
