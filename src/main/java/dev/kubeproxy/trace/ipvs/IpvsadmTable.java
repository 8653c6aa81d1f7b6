package dev.kubeproxy.trace.ipvs;

import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.trace.iptables.VirtualServers;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * IPVS's table read from "ipvsadm -Sn" text (ipvsadm.c's rule format): "-A -t|-u|--sctp-service ADDR:PORT
 * [options]" declares a virtual server, "-a -t|-u|--sctp-service ADDR:PORT -r ADDR:PORT [-m|-g|-i] -w WEIGHT" one of
 * its real servers. Firewall-mark services ("-f") are not kube-proxy's and are skipped.
 */
public final class IpvsadmTable implements VirtualServers {
  /** Real servers ("ip:port") and weights by virtual server ("ip|proto|port"). */
  private final Map<String, Map<String, Integer>> servers = new LinkedHashMap<>();

  private IpvsadmTable() {}

  /** @throws IllegalArgumentException naming the line when the text is not "ipvsadm -Sn" output */
  public static IpvsadmTable parse(String text) {
    IpvsadmTable table = new IpvsadmTable();
    int number = 0;
    for (String raw : text.split("\n")) {
      number++;
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] f = line.split("\\s+");
      if (f.length < 3 || !(f[0].equals("-A") || f[0].equals("-a"))) {
        throw bad(number, line, "expected \"-A\" (a virtual server) or \"-a\" (a real server)");
      }
      if (f[1].equals("-f") || f[1].equals("--fwmark-service")) {
        continue;
      }
      String protocol = switch (f[1]) {
        case "-t", "--tcp-service" -> "tcp";
        case "-u", "--udp-service" -> "udp";
        case "--sctp-service" -> "sctp";
        default -> throw bad(number, line, "expected -t, -u or --sctp-service and the virtual server's ADDR:PORT");
      };
      String key = key(hostPort(f[2], number, line), protocol);
      if (f[0].equals("-A")) {
        table.servers.putIfAbsent(key, new LinkedHashMap<>());
        continue;
      }
      Map<String, Integer> reals = table.servers.get(key);
      if (reals == null) {
        throw bad(number, line, "a real server of a virtual server not declared before it by \"-A\"");
      }
      String real = null;
      int weight = 1; // ipvsadm's default weight
      for (int i = 3; i < f.length; i++) {
        if ((f[i].equals("-r") || f[i].equals("--real-server")) && i + 1 < f.length) {
          String[] hp = hostPort(f[++i], number, line);
          real = hp[0].contains(":") ? "[" + hp[0] + "]:" + hp[1] : hp[0] + ":" + hp[1];
        } else if ((f[i].equals("-w") || f[i].equals("--weight")) && i + 1 < f.length) {
          try {
            weight = Integer.parseInt(f[++i]);
          } catch (NumberFormatException e) {
            throw bad(number, line, "the weight is not a number");
          }
        }
      }
      if (real == null) {
        throw bad(number, line, "a real server needs \"-r ADDR:PORT\"");
      }
      reals.put(real, weight);
    }
    return table;
  }

  /** Real servers of weight above 0 get new connections; a draining one (weight 0) keeps only its own. */
  @Override
  public List<String> destinations(String address, String protocol, int port) {
    String normalized = IpAddresses.normalize(address);
    Map<String, Integer> reals = servers.get((normalized == null ? address : normalized) + "|"
        + protocol.toLowerCase(Locale.ROOT) + "|" + port);
    if (reals == null) {
      return null;
    }
    List<String> out = new ArrayList<>();
    reals.forEach((real, weight) -> {
      if (weight > 0) {
        out.add(real);
      }
    });
    out.sort(null);
    return out;
  }

  /** The virtual servers read, as "ip|proto|port". */
  public java.util.Set<String> virtualServers() {
    return java.util.Collections.unmodifiableSet(servers.keySet());
  }

  private static String key(String[] hostPort, String protocol) {
    return hostPort[0] + "|" + protocol + "|" + hostPort[1];
  }

  /** "10.0.0.1:80" or "[fd00::1]:80" as {normalized address, port}. */
  private static String[] hostPort(String text, int number, String line) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0) {
      throw bad(number, line, "\"" + text + "\" is not ADDR:PORT");
    }
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    String normalized = IpAddresses.normalize(host);
    String port = text.substring(colon + 1);
    if (normalized == null || !port.matches("[0-9]{1,5}")) {
      throw bad(number, line, "\"" + text + "\" is not ADDR:PORT with a numeric address (ipvsadm -S needs -n)");
    }
    return new String[] {normalized, Integer.toString(Integer.parseInt(port))};
  }

  private static IllegalArgumentException bad(int number, String line, String what) {
    return new IllegalArgumentException("ipvsadm line " + number + " (" + line + "): " + what
        + ", as \"ipvsadm -Sn\" prints");
  }
}
