package dev.kubeproxy.packaging;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the kernel does with a connection to each ClusterIP, read from a dump of the agent's rules:
 * cluster IP → the endpoints ("ip:port") its rules DNAT to. It follows the rules the way a packet
 * would (the dispatch rule, then the Service's chain, then its endpoints), so a leftover chain or
 * map element that nothing reaches does not count.
 */
final class KernelServiceEndpoints {
  private static final Pattern IPT_SERVICE = Pattern.compile("-d (\\S+)/32 .*-j (KUBE-SVC-\\S+)");
  private static final Pattern IPT_ENDPOINT = Pattern.compile("-j (KUBE-SEP-\\S+)");
  private static final Pattern IPT_DNAT = Pattern.compile("--to-destination (\\S+)");
  private static final Pattern NFT_BLOCK = Pattern.compile("^\\t(?:chain|map|set) \"?([^\\s\"]+)\"? \\{$");
  private static final Pattern NFT_SERVICE_IP =
      Pattern.compile("([0-9.]+) \\. tcp \\. \\d+(?: comment \"[^\"]*\")? : goto \"?([^\\s,\"]+)");
  private static final Pattern NFT_SINGLE_ENDPOINT =
      Pattern.compile("([0-9.]+) \\. tcp \\. \\d+ : ([0-9.]+) \\. (\\d+)");
  private static final Pattern NFT_PICK = Pattern.compile("numgen random mod (\\d+)(?: offset (\\d+))? map @(\\S+)");
  private static final Pattern NFT_ELEMENT = Pattern.compile("(\\d+) : ([0-9.]+) \\. (\\d+)");
  private static final Pattern NFT_DNAT = Pattern.compile("dnat to ([0-9.]+:\\d+)");
  private static final Pattern NFT_GOTO_ENDPOINT = Pattern.compile("goto \"?(endpoint-[^\\s,\"]+)");

  private KernelServiceEndpoints() {}

  /** From iptables-save: KUBE-SERVICES → KUBE-SVC-* → KUBE-SEP-* → DNAT, in the nat table. */
  static Map<String, Set<String>> fromIptablesSave(String dump) {
    Map<String, List<String>> rules = new HashMap<>();
    String table = "";
    for (String line : dump.split("\n")) {
      if (line.startsWith("*")) {
        table = line.substring(1);
      } else if (table.equals("nat") && line.startsWith("-A ")) {
        int space = line.indexOf(' ', 3);
        rules.computeIfAbsent(line.substring(3, space), c -> new ArrayList<>()).add(line.substring(space + 1));
      }
    }
    Map<String, Set<String>> out = new HashMap<>();
    for (String rule : rules.getOrDefault("KUBE-SERVICES", List.of())) {
      Matcher service = IPT_SERVICE.matcher(rule);
      if (!service.find()) {
        continue;
      }
      Set<String> endpoints = out.computeIfAbsent(service.group(1), ip -> new TreeSet<>());
      for (String svcRule : rules.getOrDefault(service.group(2), List.of())) {
        Matcher sep = IPT_ENDPOINT.matcher(svcRule);
        if (sep.find()) {
          for (String sepRule : rules.getOrDefault(sep.group(1), List.of())) {
            Matcher dnat = IPT_DNAT.matcher(sepRule);
            if (dnat.find()) {
              endpoints.add(dnat.group(1));
            }
          }
        }
      }
    }
    return out;
  }

  /**
   * From {@code nft list table}: the service-ips map → the Service's chain → its endpoints: the
   * keys offset..offset+N-1 of the endpoint-ranges map its rule picks from, a single endpoint's
   * "dnat to", or (session affinity) the endpoint chains it jumps to; and the single-endpoint map
   * the services chain DNATs through.
   */
  static Map<String, Set<String>> fromNftList(String listing) {
    Map<String, String> blocks = new HashMap<>();
    String current = null;
    StringBuilder body = new StringBuilder();
    for (String line : listing.split("\n")) {
      Matcher start = NFT_BLOCK.matcher(line);
      if (start.matches()) {
        current = start.group(1);
        body.setLength(0);
      } else if (current != null && line.equals("\t}")) {
        blocks.put(current, body.toString());
        current = null;
      } else if (current != null) {
        body.append(line).append('\n');
      }
    }
    Map<String, Set<String>> out = new HashMap<>();
    Matcher service = NFT_SERVICE_IP.matcher(blocks.getOrDefault("service-ips", ""));
    while (service.find()) {
      Set<String> endpoints = out.computeIfAbsent(service.group(1), ip -> new TreeSet<>());
      endpointsOfChain(blocks, blocks.getOrDefault(service.group(2), ""), endpoints);
    }
    if (blocks.getOrDefault("services", "").contains("map @single-endpoint-services")) {
      Matcher single = NFT_SINGLE_ENDPOINT.matcher(blocks.getOrDefault("single-endpoint-services", ""));
      while (single.find()) {
        out.computeIfAbsent(single.group(1), ip -> new TreeSet<>()).add(single.group(2) + ":" + single.group(3));
      }
    }
    return out;
  }

  private static void endpointsOfChain(Map<String, String> blocks, String chain, Set<String> endpoints) {
    Matcher pick = NFT_PICK.matcher(chain);
    while (pick.find()) {
      int n = Integer.parseInt(pick.group(1));
      int offset = pick.group(2) == null ? 0 : Integer.parseInt(pick.group(2)); // nft leaves out "offset 0"
      Matcher element = NFT_ELEMENT.matcher(blocks.getOrDefault(pick.group(3), ""));
      while (element.find()) {
        int key = Integer.parseInt(element.group(1));
        if (key >= offset && key < offset + n) {
          endpoints.add(element.group(2) + ":" + element.group(3));
        }
      }
    }
    Matcher dnat = NFT_DNAT.matcher(chain);
    while (dnat.find()) {
      endpoints.add(dnat.group(1));
    }
    Matcher jump = NFT_GOTO_ENDPOINT.matcher(chain);
    while (jump.find()) {
      Matcher target = NFT_DNAT.matcher(blocks.getOrDefault(jump.group(1), ""));
      while (target.find()) {
        endpoints.add(target.group(1));
      }
    }
  }
}
