package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.backend.netfilter.IptablesTool;
import dev.kubeproxy.model.ProgrammedRuleset;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * ipvs mode's whole programmed state for a packet tracer ({@link ProgrammedRuleset#IPVS}): IPVS's table in
 * "ipvsadm -Sn" form, "ipset save", iptables-save's filter and nat tables, and kube-ipvs0's addresses. From the
 * kernel, or in --dry-run from the last state printed. Each part is the tools' own text (IPVS is read over
 * netlink, as "ipvsadm -Sn" reads it), so the tracer parses what the kernel holds, not the agent's plan.
 */
public final class IpvsReadBack {
  private IpvsReadBack() {}

  static ProgrammedRuleset fromKernel(Ipvs ipvs, IpSetTool ipset, IptablesTool iptables, DummyInterface dummy) {
    String source = "IPVS over netlink, ipset save, " + iptables.saveCommand() + " (filter and nat), ip addr show dev "
        + dummy.name();
    String step = "IPVS over netlink";
    try {
      List<VirtualServer> virtualServers = ipvs.virtualServers();
      StringBuilder table = new StringBuilder();
      for (VirtualServer vs : virtualServers) {
        table.append(ipvsadmSave(vs, ipvs.realServers(vs)));
      }
      step = "ipset save";
      String sets = ipset.save();
      step = iptables.saveCommand();
      String rules = iptables.save("filter") + iptables.save("nat");
      step = "ip addr show dev " + dummy.name();
      Set<String> bound = dummy.boundAddresses();
      return ProgrammedRuleset.ipvs(source, table.toString(), sets, rules, bound);
    } catch (IOException e) {
      return ProgrammedRuleset.unavailable(step, e.getMessage());
    }
  }

  /**
   * The last state the dry run printed: the iptables-restore input after the jump rules a sync inserts into the
   * built-in chains (a dry run prints those apart), and the sets as "ipset save" would list them.
   */
  public static ProgrammedRuleset fromDryRun(IpvsRuleset last, Collection<IpSet> sets) {
    String source = "the last state the dry run printed";
    if (last == null) {
      return ProgrammedRuleset.unavailable(source, "nothing printed yet");
    }
    StringBuilder table = new StringBuilder();
    last.virtualServers().forEach((key, vs) -> table.append(ipvsadmSave(vs,
        last.realServers().getOrDefault(key, List.of()))));
    return ProgrammedRuleset.ipvs(source, table.toString(), ipsetSave(sets, last.ipsetEntries()),
        jumps() + last.iptablesRestore(),
        last.bindAddresses());
  }

  /** The jump rules from the built-in chains, as iptables-restore --noflush input. */
  private static String jumps() {
    StringBuilder text = new StringBuilder();
    for (String table : List.of("filter", "nat")) {
      text.append('*').append(table).append('\n');
      Set<String> declared = new LinkedHashSet<>();
      List<String> rules = new ArrayList<>();
      for (IpvsRulesetGenerator.Jump jump : IpvsRulesetGenerator.JUMPS) {
        if (jump.table().equals(table)) {
          if (declared.add(jump.to())) {
            text.append(':').append(jump.to()).append(" - [0:0]\n");
          }
          rules.add("-I " + jump.from() + " -m comment --comment \"" + jump.comment() + "\" -j " + jump.to());
        }
      }
      rules.forEach(r -> text.append(r).append('\n'));
      text.append("COMMIT\n");
    }
    return text.toString();
  }

  /**
   * One virtual server and its real servers as "ipvsadm -Sn" prints them (ipvsadm.c print_service_entry in its
   * rule format): "-A -t ADDR:PORT -s SCHED [-p TIMEOUT]", then "-a -t ADDR:PORT -r ADDR:PORT -m -w WEIGHT".
   */
  static String ipvsadmSave(VirtualServer vs, List<RealServer> reals) {
    String service = switch (vs.protocol()) {
      case "TCP" -> "-t";
      case "UDP" -> "-u";
      default -> "--sctp-service";
    } + " " + VirtualServer.hostPort(vs.address(), vs.port());
    StringBuilder out = new StringBuilder("-A ").append(service).append(" -s ").append(vs.scheduler());
    if ((vs.flags() & VirtualServer.FLAG_PERSISTENT) != 0) {
      out.append(" -p ").append(vs.timeout());
    }
    out.append('\n');
    for (RealServer rs : reals) {
      out.append("-a ").append(service).append(" -r ").append(rs.key()).append(" -m -w ").append(rs.weight())
          .append('\n');
    }
    return out.toString();
  }

  /** The sets and their entries as "ipset save" lists them. */
  static String ipsetSave(Collection<IpSet> sets, Map<String, Set<String>> entries) {
    StringBuilder save = new StringBuilder();
    for (IpSet set : sets) {
      save.append(set.createLine()).append('\n');
      entries.getOrDefault(set.name(), Set.of()).forEach(e -> save.append("add ").append(set.name()).append(' ')
          .append(e).append('\n'));
    }
    return save.toString();
  }
}
