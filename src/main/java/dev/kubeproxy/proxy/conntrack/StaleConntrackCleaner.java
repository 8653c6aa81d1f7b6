package dev.kubeproxy.proxy.conntrack;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.platform.CommandRunner;
import dev.kubeproxy.proxy.EndpointsMap;
import dev.kubeproxy.proxy.IpFamily;
import dev.kubeproxy.proxy.ServicePort;
import dev.kubeproxy.proxy.ServicePortMap;
import dev.kubeproxy.proxy.ServicePortName;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Deletes UDP conntrack entries that would keep sending packets to the wrong place after a sync
 * (service-model.md §11, 1.31 behaviour with the conntrack binary): entries that black-holed
 * traffic while a service had no endpoints, and entries still DNAT-ed to an endpoint that went
 * away. TCP and SCTP entries are left to expire. Errors are logged and otherwise ignored.
 */
public final class StaleConntrackCleaner {
  /** conntrack exits non-zero when nothing matched; that is not a failure. */
  static final String NOTHING_DELETED = "0 flow entries have been deleted";

  private final CommandRunner runner;

  public StaleConntrackCleaner(CommandRunner runner) {
    this.runner = runner;
  }

  /** Runs the deletions for one family after a successful sync. Blocking: call it on a worker. */
  public void cleanup(
      IpFamily family, ServicePortMap services, ServicePortMap.UpdateResult serviceUpdate,
      EndpointsMap.UpdateResult endpointsUpdate) {
    for (List<String> argv : commands(family, services, serviceUpdate, endpointsUpdate)) {
      run(argv);
    }
  }

  /** The conntrack command lines for these updates, in the order they run. */
  public static List<List<String>> commands(
      IpFamily family, ServicePortMap services, ServicePortMap.UpdateResult serviceUpdate,
      EndpointsMap.UpdateResult endpointsUpdate) {
    List<List<String>> out = new ArrayList<>();
    // Service side: entries created while the service had no endpoints.
    TreeSet<String> ips = new TreeSet<>(serviceUpdate.deletedUDPClusterIPs());
    TreeSet<Integer> nodePorts = new TreeSet<>();
    for (ServicePortName spn : new TreeSet<>(endpointsUpdate.newlyActiveUDPServices())) {
      ServicePort port = services.get(spn);
      if (port == null) {
        continue;
      }
      ips.add(port.clusterIP());
      ips.addAll(port.externalIPs());
      ips.addAll(port.loadBalancerVIPs());
      if (port.nodePort() != 0) {
        nodePorts.add(port.nodePort());
      }
    }
    for (String ip : ips) {
      out.add(withFamily(IpFamily.ofText(ip), "-D", "--orig-dst", ip, "-p", "udp"));
    }
    for (int nodePort : nodePorts) {
      out.add(withFamily(family, "-D", "-p", "udp", "--dport", String.valueOf(nodePort)));
    }
    // Endpoint side: entries still DNAT-ed to an endpoint that is gone.
    for (EndpointsMap.DeletedUdpEndpoint deleted : endpointsUpdate.deletedUDPEndpoints()) {
      ServicePort port = services.get(deleted.servicePort());
      if (port == null) {
        continue;
      }
      String endpointIP = deleted.endpoint().ip();
      IpFamily f = IpFamily.ofText(endpointIP);
      if (port.nodePort() != 0) {
        out.add(withFamily(f, "-D", "-p", "udp", "--dport", String.valueOf(port.nodePort()), "--dst-nat", endpointIP));
      }
      List<String> origins = new ArrayList<>();
      origins.add(port.clusterIP());
      origins.addAll(port.externalIPs());
      origins.addAll(port.loadBalancerVIPs());
      for (String origin : origins) {
        out.add(withFamily(IpFamily.ofText(origin), "-D", "--orig-dst", origin, "--dst-nat", endpointIP, "-p", "udp"));
      }
    }
    return out;
  }

  private static List<String> withFamily(IpFamily family, String... args) {
    List<String> argv = new ArrayList<>();
    argv.add("conntrack");
    argv.addAll(List.of(args));
    if (family == IpFamily.IPv6) {
      argv.add("-f");
      argv.add("ipv6");
    }
    return argv;
  }

  private void run(List<String> argv) {
    String line = String.join(" ", argv);
    try {
      CommandRunner.Result r = runner.run(argv);
      if (r.ok() || r.stdout().contains(NOTHING_DELETED) || r.stderr().contains(NOTHING_DELETED)) {
        Log.v(2).info("Cleared conntrack entries", "command", line);
        return;
      }
      Log.error("Failed to clear conntrack entries", "command", line, "exitStatus", r.exitCode(),
          "output", (r.stderr() + r.stdout()).trim());
    } catch (IOException e) {
      Log.error("Failed to run the command that clears stale conntrack entries", e, "command", line);
    }
  }
}
