package dev.kubeproxy.model;

import java.util.List;

/**
 * What the kernel holds for one service port right now, as its tools print it (or, in --dry-run,
 * what the dry run printed last), for people reading /debug/services.
 *
 * @param source where the lines were read: the command, or the dry run's last output
 * @param lines  the service port's chains, rules and set or map elements, in the tool's order
 * @param error  why they could not be read, or null
 */
public record ProgrammedRules(String source, List<String> lines, String error) {
  public ProgrammedRules {
    lines = List.copyOf(lines);
  }

  public static ProgrammedRules of(String source, List<String> lines) {
    return new ProgrammedRules(source, lines, null);
  }

  public static ProgrammedRules failed(String source, String error) {
    return new ProgrammedRules(source, List.of(), error);
  }
}
