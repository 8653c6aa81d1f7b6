package dev.kubeproxy.cli;

/**
 * One command-line flag.
 *
 * @param name         the long name without dashes, e.g. "bind-address"
 * @param shorthand    a one-letter short name ("v", "h") or null
 * @param type         the value type
 * @param defaultText  the default as --help and the -v=1 flag dump print it ("" = zero value)
 * @param usage        the help text
 * @param deprecation  non-null for deprecated flags: the warning printed when used (they are hidden)
 */
public record FlagDef(String name, String shorthand, FlagType type, String defaultText, String usage,
    String deprecation) {

  public boolean isBool() {
    return type == FlagType.BOOL;
  }

  /** The name as errors quote it: "--name", or "-v, --v" with a shorthand. */
  public String display() {
    return shorthand == null ? "--" + name : "-" + shorthand + ", --" + name;
  }
}
