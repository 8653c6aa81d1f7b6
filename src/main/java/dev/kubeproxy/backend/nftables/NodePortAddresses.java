package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.host.CommandRunner;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Which local addresses accept NodePort traffic (pkg/proxy/util/nodeport_addresses.go
 * NewNodePortAddresses, MatchAll and GetNodeIPs): every address when the
 * configured CIDRs are empty or contain a /0, otherwise the node's interface addresses inside the
 * CIDRs, loopback excluded (nftables never DNATs a loopback destination; localhost NodePorts, when
 * enabled, are served in user space by {@link LocalNodePortProxy}).
 */
final class NodePortAddresses {

  private final List<String> cidrs;
  private final Supplier<List<String>> interfaceAddresses;
  private boolean loggedLoopback;

  NodePortAddresses(List<String> cidrs, Supplier<List<String>> interfaceAddresses) {
    this.cidrs = List.copyOf(cidrs);
    this.interfaceAddresses = interfaceAddresses;
  }

  boolean matchAll() {
    return cidrs.isEmpty() || cidrs.stream().anyMatch(Cidrs::isMatchAll);
  }

  /**
   * Whether a configured CIDR starts at a loopback address (pkg/proxy/util/nodeport_addresses.go
   * ContainsExplicitLoopback): 127.0.0.0/8, 127.0.0.1/32 or ::1/128 ask for localhost NodePorts, while
   * a zero CIDR ("all"), which contains loopback too, does not.
   */
  boolean containsExplicitLoopback() {
    for (String cidr : cidrs) {
      int slash = cidr.indexOf('/');
      if (Cidrs.isLoopback(slash < 0 ? cidr : cidr.substring(0, slash))) {
        return true;
      }
    }
    return false;
  }

  /** The addresses for the nodeport-ips set, or null when every local address qualifies. */
  List<String> resolve() {
    if (matchAll()) {
      return null;
    }
    Set<String> ips = new LinkedHashSet<>();
    boolean needInterfaces = false;
    for (String cidr : cidrs) {
      String single = Cidrs.singleAddress(cidr);
      if (single != null) {
        ips.add(single);
      } else {
        needInterfaces = true;
      }
    }
    if (needInterfaces) {
      for (String addr : interfaceAddresses.get()) {
        for (String cidr : cidrs) {
          if (Cidrs.contains(cidr, addr)) {
            ips.add(addr);
          }
        }
      }
    }
    List<String> result = new ArrayList<>();
    for (String ip : ips) {
      if (Cidrs.isLoopback(ip)) {
        if (!loggedLoopback) {
          Log.info("localhost NodePorts are not supported; ignoring the address", "address", ip);
          loggedLoopback = true;
        }
      } else {
        result.add(ip);
      }
    }
    return result;
  }

  /** Interface addresses from "ip -o addr show" run through the backend's command runner. */
  static Supplier<List<String>> fromIpCommand(CommandRunner runner) {
    return () -> {
      List<String> out = new ArrayList<>();
      try {
        CommandRunner.Result r = runner.run(List.of("ip", "-o", "addr", "show"));
        if (!r.ok()) {
          Log.warn("Cannot list interface addresses", "err", r.stderr().strip());
          return out;
        }
        for (String line : r.stdout().split("\n")) {
          String[] f = line.trim().split("\\s+");
          for (int i = 0; i + 1 < f.length; i++) {
            if (f[i].equals("inet") || f[i].equals("inet6")) {
              String a = f[i + 1];
              out.add(a.indexOf('/') >= 0 ? a.substring(0, a.indexOf('/')) : a);
            }
          }
        }
      } catch (IOException e) {
        Log.warn("Cannot list interface addresses", "err", e.getMessage());
      }
      return out;
    };
  }
}
