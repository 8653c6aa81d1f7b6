package dev.kubeproxy.trace.iptables;

import dev.kubeproxy.net.Cidr;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ipsets a ruleset's {@code -m set --match-set} rules test, read from "ipset save" text (ipset(8): "create
 * NAME TYPE ..." and "add NAME ENTRY" lines), with the membership test of each type kube-proxy uses: hash:ip,
 * hash:net, hash:ip,port, hash:ip,port,ip, hash:ip,port,net and bitmap:port.
 */
public final class IpSetContents {
  private final Map<String, String> types = new HashMap<>();
  private final Map<String, Set<String>> entries = new HashMap<>();

  /** No sets: a rule that tests one fails the trace with a clear error. */
  public static IpSetContents none() {
    return new IpSetContents();
  }

  /** @throws IllegalArgumentException naming the line when the text is not "ipset save" output */
  public static IpSetContents parse(String text) {
    IpSetContents sets = new IpSetContents();
    int number = 0;
    for (String raw : text.split("\n")) {
      number++;
      String[] f = raw.strip().split("\\s+");
      if (f.length == 0 || f[0].isEmpty() || f[0].startsWith("#")) {
        continue;
      }
      if (f[0].equals("create") && f.length >= 3) {
        sets.types.put(f[1], f[2]);
        sets.entries.putIfAbsent(f[1], new LinkedHashSet<>());
      } else if (f[0].equals("add") && f.length >= 3 && sets.types.containsKey(f[1])) {
        sets.entries.get(f[1]).add(f[2]);
      } else {
        throw new IllegalArgumentException("ipset line " + number + " (" + raw.strip() + "): expected \"create NAME"
            + " TYPE ...\" or \"add NAME ENTRY\" for a created set, as \"ipset save\" prints");
      }
    }
    return sets;
  }

  /** Whether the packet's fields named by the flags ("dst,dst,src") make an entry of the set. */
  boolean contains(String set, List<String> flags, PacketState packet) {
    String type = types.get(set);
    if (type == null) {
      throw new IllegalStateException("a rule tests ipset " + set + ", which the ipset contents given do not have");
    }
    String[] dims = type.substring(type.indexOf(':') + 1).split(",");
    for (String entry : entries.get(set)) {
      if (matches(entry.split(","), dims, flags, packet)) {
        return true;
      }
    }
    return false;
  }

  private static boolean matches(String[] fields, String[] dims, List<String> flags, PacketState packet) {
    if (fields.length != dims.length || flags.size() < dims.length) {
      return false;
    }
    for (int i = 0; i < dims.length; i++) {
      boolean source = flags.get(i).equals("src");
      String field = fields[i];
      boolean ok = switch (dims[i]) {
        case "ip" -> Cidr.parse(field).contains(source ? packet.source : packet.destination);
        case "net" -> Cidr.parse(field).contains(source ? packet.source : packet.destination);
        case "port" -> !source && portMatches(field, packet);
        default -> throw new IllegalStateException("ipset dimension " + dims[i] + " is not one the tracer reads");
      };
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** "tcp:80" (hash types) or "80" (bitmap:port, protocol-less). */
  private static boolean portMatches(String field, PacketState packet) {
    int colon = field.lastIndexOf(':');
    if (colon >= 0 && !field.substring(0, colon).equalsIgnoreCase(packet.protocol)) {
      return false;
    }
    return Integer.parseInt(field.substring(colon + 1)) == packet.destinationPort;
  }
}
