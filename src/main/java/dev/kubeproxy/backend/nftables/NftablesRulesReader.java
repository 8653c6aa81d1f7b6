package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Transaction;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProgrammedRules;
import dev.kubeproxy.model.ProgrammedRuleset;
import dev.kubeproxy.model.Protocols;
import dev.kubeproxy.model.ServicePort;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the kube-proxy table holds for one service port, for /debug/services: its chains
 * ({@code nft list chain}) and its elements in the shared verdict maps and in the endpoint-ranges
 * shard its policy chains pick from ({@code nft list map}); in --dry-run, the same lines from the
 * last transactions the dry run printed.
 */
final class NftablesRulesReader {
  static final List<String> VERDICT_MAPS =
      List.of("service-ips", "service-nodeports", "firewall-ips", "no-endpoint-services", "no-endpoint-nodeports");
  private static final Pattern SLOT = Pattern.compile("numgen random mod (\\d+)(?: offset (\\d+))? map @(\\S+)");

  private final IpFamily family;

  NftablesRulesReader(IpFamily family) {
    this.family = family;
  }

  /** Reads the kernel's table with nft. */
  ProgrammedRules fromKernel(CommandRunner runner, ServicePort port, List<Endpoint> endpoints) {
    String fam = Transaction.familyKeyword(family);
    Set<String> names = chainNames(port, endpoints);
    List<String> out = new ArrayList<>();
    try {
      for (String chain : names) {
        CommandRunner.Result r = runner.run(List.of("nft", "list", "chain", fam, Transaction.TABLE, chain));
        if (r.ok()) {
          out.addAll(chainBody(r.stdout()));
        }
      }
      for (String map : VERDICT_MAPS) {
        for (String element : elements(runner, fam, map)) {
          if (mentions(element, names, port)) {
            out.add("map " + map + ": " + element);
          }
        }
      }
      for (PortElements slot : slots(out, port)) {
        for (String element : elements(runner, fam, slot.map())) {
          if (slot.holds(element)) {
            out.add("map " + slot.map() + ": " + element);
          }
        }
      }
    } catch (IOException e) {
      return ProgrammedRules.failed("nft list", e.getMessage());
    }
    return ProgrammedRules.of("nft list chain / list map, " + fam + " " + Transaction.TABLE, out);
  }

  /** The family's whole table as {@code nft -j list table} prints it, for the nftables tracer. */
  static ProgrammedRuleset wholeFromKernel(CommandRunner runner, IpFamily family) {
    List<String> argv = List.of("nft", "-j", "list", "table", Transaction.familyKeyword(family), Transaction.TABLE);
    String source = String.join(" ", argv);
    try {
      CommandRunner.Result r = runner.run(argv);
      if (!r.ok()) {
        return ProgrammedRuleset.unavailable(source, "nft exited " + r.exitCode() + ": " + r.stderr().strip());
      }
      return ProgrammedRuleset.nftJson(source, r.stdout());
    } catch (IOException e) {
      return ProgrammedRuleset.unavailable(source, e.getMessage());
    }
  }

  /** The lines of the dry run's printed transactions (one command a line) that are this port's. */
  ProgrammedRules fromDryRun(List<String> printed, ServicePort port, List<Endpoint> endpoints) {
    Set<String> names = chainNames(port, endpoints);
    List<String> out = new ArrayList<>();
    for (String line : printed) {
      if (mentions(line, names, port)) {
        out.add(line);
      }
    }
    List<PortElements> slots = slots(out, port);
    for (String line : printed) {
      for (PortElements slot : slots) {
        String prefix = "add element " + Transaction.familyKeyword(family) + " " + Transaction.TABLE + " " + slot.map()
            + " { ";
        if (line.startsWith(prefix) && line.endsWith(" }")) {
          // One command holds the elements of many chains: keep this chain's only.
          List<String> held = new ArrayList<>();
          for (String element : line.substring(prefix.length(), line.length() - 2).split(" , ")) {
            if (slot.holds(element)) {
              held.add(element.strip());
            }
          }
          if (!held.isEmpty()) {
            out.add(prefix + String.join(" , ", held) + " }");
          }
        }
      }
    }
    return ProgrammedRules.of("the transactions the dry run printed (one command a line)", out);
  }

  private static Set<String> chainNames(ServicePort port, List<Endpoint> endpoints) {
    ChainNames.ServiceChains chains = ChainNames.ServiceChains.of(port.name());
    Set<String> names = new LinkedHashSet<>(List.of(chains.service(), chains.local(), chains.external(),
        chains.firewall()));
    if (port.sessionAffinityClientIP()) {
      for (Endpoint ep : endpoints) {
        names.add(ChainNames.endpointChain(port.name(), ep));
      }
    }
    return names;
  }

  private static boolean mentions(String line, Set<String> names, ServicePort port) {
    if (line.contains("comment \"" + port.name() + "\"")) {
      return true;
    }
    for (String name : names) {
      int at = line.indexOf(name);
      // a whole name: the next character ends it
      if (at >= 0 && (at + name.length() == line.length() || " ,;}\"".indexOf(line.charAt(at + name.length())) >= 0)) {
        return true;
      }
    }
    return false;
  }

  /** The rules of "nft list chain" output, without the table and chain braces. */
  private static List<String> chainBody(String listing) {
    List<String> out = new ArrayList<>();
    for (String line : listing.split("\n")) {
      String t = line.strip();
      if (t.isEmpty() || t.startsWith("table ") || t.equals("}")) {
        continue;
      }
      out.add(t.startsWith("chain ") ? t.replaceFirst(" \\{$", ":") : "  " + t);
    }
    return out;
  }

  private List<String> elements(CommandRunner runner, String fam, String map) throws IOException {
    CommandRunner.Result r = runner.run(List.of("nft", "list", "map", fam, Transaction.TABLE, map));
    if (!r.ok()) {
      return List.of();
    }
    String text = r.stdout();
    int start = text.indexOf("elements = {");
    if (start < 0) {
      return List.of();
    }
    int end = text.indexOf('}', start);
    List<String> out = new ArrayList<>();
    for (String element : text.substring(start + "elements = {".length(), end < 0 ? text.length() : end).split(",")) {
      String t = element.strip().replaceAll("\\s+", " ");
      if (!t.isEmpty()) {
        out.add(t);
      }
    }
    return out;
  }

  /** Where a port's elements are in a map it shares with other ports. */
  private sealed interface PortElements {
    String map();

    /** Whether an element, as nft prints it ("KEY : VALUE"), is one of the port's. */
    boolean holds(String element);

    static String key(String element) {
      int colon = element.indexOf(" : ");
      return element.substring(0, colon < 0 ? element.length() : colon).strip();
    }
  }

  /** Keys offset..offset+n-1 of an endpoint-ranges shard (ranges of them): one policy chain's endpoints. */
  private record Slot(String map, int offset, int n) implements PortElements {
    @Override
    public boolean holds(String element) {
      String key = PortElements.key(element);
      int dash = key.indexOf('-');
      try {
        long first = Long.parseLong(dash < 0 ? key : key.substring(0, dash));
        return first >= offset && first < (long) offset + n;
      } catch (NumberFormatException e) {
        return false;
      }
    }
  }

  /** The port's key in the single-endpoint map ("CLUSTER-IP . proto . port"). */
  private record SingleEndpoint(String map, String key) implements PortElements {
    @Override
    public boolean holds(String element) {
      return PortElements.key(element).equals(key);
    }
  }

  /** The port's slots in the endpoint-ranges shards its rules name, and its key in the single-endpoint map. */
  private static List<PortElements> slots(List<String> lines, ServicePort port) {
    List<PortElements> out = new ArrayList<>();
    if (port.clusterIP() != null && !port.clusterIP().isEmpty()) {
      out.add(new SingleEndpoint(SingleEndpointServices.MAP,
          port.clusterIP() + " . " + Protocols.lowerCase(port.protocol()) + " . " + port.port()));
    }
    for (String line : lines) {
      Matcher m = SLOT.matcher(line);
      if (m.find()) {
        // nft leaves out "offset 0"
        Slot slot = new Slot(m.group(3), m.group(2) == null ? 0 : Integer.parseInt(m.group(2)),
            Integer.parseInt(m.group(1)));
        if (!out.contains(slot)) {
          out.add(slot);
        }
      }
    }
    return out;
  }
}
