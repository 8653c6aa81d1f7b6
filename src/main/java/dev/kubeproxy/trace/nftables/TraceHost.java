package dev.kubeproxy.trace.nftables;

import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.trace.Origin;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * What the rules ask of the node rather than of the packet: which addresses are local ("fib daddr
 * type local", and whether a packet is routed to input or forwarded) and which interface a pod's
 * packets arrive on ("iifname", for the bridge and interface-prefix local traffic detectors).
 *
 * @param localAddresses the node's addresses (loopback is always local)
 * @param podInterface   the interface name pods' packets arrive on, or null when the rules never ask
 */
public record TraceHost(Set<String> localAddresses, String podInterface) {

  public TraceHost {
    Set<String> normalized = new HashSet<>();
    for (String a : localAddresses) {
      String n = IpAddresses.normalize(a);
      if (n == null) {
        throw new IllegalArgumentException("not an IP address among the node's local addresses: " + a);
      }
      normalized.add(n);
    }
    localAddresses = Set.copyOf(normalized);
  }

  public static TraceHost of(Collection<String> localAddresses) {
    return new TraceHost(Set.copyOf(localAddresses), null);
  }

  /** Whether the address is one of the node's ("fib ... type local"). */
  public boolean isLocal(String address) {
    return IpAddresses.isLoopback(address) || localAddresses.contains(IpAddresses.normalize(address));
  }

  /**
   * Whether "iifname [!=] pattern" holds for a packet from origin (a trailing "*" matches a prefix).
   * A pod's packet arrives on the pod interface; one from outside on a NIC, which no pattern of the
   * rules names; the node's own packets have no input interface on the output path and arrive on
   * "lo" when they loop back to the node.
   */
  boolean interfaceMatches(Origin origin, boolean outputPath, boolean negated, String pattern) {
    String name;
    switch (origin) {
      case POD -> {
        if (podInterface == null) {
          throw new IllegalArgumentException("the rules match pod traffic by input interface (iifname \"" + pattern
              + "\"): give the tracer the interface pods' packets arrive on");
        }
        name = podInterface;
      }
      case NODE -> name = outputPath ? "" : "lo";
      default -> {
        return negated;
      }
    }
    boolean match = pattern.endsWith("*") ? name.startsWith(pattern.substring(0, pattern.length() - 1))
        : name.equals(pattern);
    return match != negated;
  }
}
