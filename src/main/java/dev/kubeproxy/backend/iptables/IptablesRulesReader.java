package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.netfilter.IptablesTool;

import dev.kubeproxy.model.ProgrammedRules;
import dev.kubeproxy.model.ProgrammedRuleset;
import dev.kubeproxy.model.ServicePortName;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What iptables holds for one service port, for /debug/services: from {@code iptables-save} (or,
 * in --dry-run, the last restore input printed), the port's own chains (KUBE-SVC-, KUBE-SVL-,
 * KUBE-EXT-, KUBE-FW- and the KUBE-SEP- chains they jump to), the rules that jump to them, and the
 * filter rules whose comment names the port.
 */
final class IptablesRulesReader {
  private IptablesRulesReader() {}

  static ProgrammedRules fromKernel(IptablesTool tool, ServicePortName spn) {
    try {
      return ProgrammedRules.of(tool.saveCommand() + " (filter and nat)", select(tool.save("filter")
          + tool.save("nat"), spn));
    } catch (IOException e) {
      return ProgrammedRules.failed(tool.saveCommand(), e.getMessage());
    }
  }

  static ProgrammedRules fromDryRun(Ruleset last, ServicePortName spn) {
    if (last == null) {
      return ProgrammedRules.failed("the dry run's output", "nothing printed yet");
    }
    return ProgrammedRules.of("the last iptables-restore input the dry run printed", select(last.payload(), spn));
  }

  /** The agent's tables whole (filter and nat) as iptables-save prints them, for a packet tracer. */
  static ProgrammedRuleset wholeFromKernel(IptablesTool tool) {
    try {
      return ProgrammedRuleset.iptables(tool.saveCommand() + " (filter and nat)", tool.save("filter")
          + tool.save("nat"));
    } catch (IOException e) {
      return ProgrammedRuleset.unavailable(tool.saveCommand(), e.getMessage());
    }
  }

  /**
   * The last restore input the dry run printed, after the jump rules a full sync inserts into the
   * built-in chains (a dry run prints those as commands of their own, not in the restore input).
   */
  static ProgrammedRuleset wholeFromDryRun(Ruleset last) {
    String source = "the last iptables-restore input the dry run printed, after the jump rules";
    if (last == null) {
      return ProgrammedRuleset.unavailable(source, "nothing printed yet");
    }
    List<JumpRule> jumps = new ArrayList<>(JumpRule.KUBE_PROXY);
    jumps.addAll(JumpRule.KUBELET);
    StringBuilder text = new StringBuilder();
    for (String table : List.of("filter", "nat")) {
      text.append('*').append(table).append('\n');
      Set<String> declared = new LinkedHashSet<>();
      for (JumpRule jump : jumps) {
        if (jump.table().equals(table) && declared.add(jump.target())) {
          text.append(':').append(jump.target()).append(" - [0:0]\n");
        }
      }
      for (JumpRule jump : jumps) {
        if (jump.table().equals(table)) {
          text.append(jump.saveLine().replaceFirst("^-A ", "-I ")).append('\n');
        }
      }
      text.append("COMMIT\n");
    }
    return ProgrammedRuleset.iptables(source, text + last.payload());
  }

  /** The port's lines of iptables-save or iptables-restore text, each under its table's "*table" line. */
  static List<String> select(String text, ServicePortName spn) {
    String hash = new ChainNames().serviceHash(spn);
    Set<String> chains = new LinkedHashSet<>(List.of("KUBE-SVC-" + hash, "KUBE-SVL-" + hash, "KUBE-EXT-" + hash,
        "KUBE-FW-" + hash));
    String[] lines = text.split("\n");
    for (String line : lines) {
      String[] f = line.split(" ");
      if (f.length > 1 && f[0].equals("-A") && chains.contains(f[1])) {
        String target = target(f);
        if (target != null && target.startsWith("KUBE-SEP-")) {
          chains.add(target);
        }
      }
    }
    String comment = "--comment \"" + spn + " ";
    String exactComment = "--comment \"" + spn + "\"";
    List<String> out = new ArrayList<>();
    String table = null;
    boolean tableShown = false;
    for (String line : lines) {
      if (line.startsWith("*")) {
        table = line;
        tableShown = false;
        continue;
      }
      String[] f = line.split(" ");
      boolean mine = (line.startsWith(":") && chains.contains(f[0].substring(1)))
          || (f.length > 1 && f[0].equals("-A") && (chains.contains(f[1]) || chains.contains(target(f))))
          || (f.length > 1 && f[0].equals("-A") && (line.contains(comment) || line.contains(exactComment)));
      if (mine) {
        if (!tableShown && table != null) {
          out.add(table);
          tableShown = true;
        }
        out.add(line);
      }
    }
    return out;
  }

  private static String target(String[] fields) {
    for (int i = 0; i < fields.length - 1; i++) {
      if (fields[i].equals("-j")) {
        return fields[i + 1];
      }
    }
    return null;
  }
}
