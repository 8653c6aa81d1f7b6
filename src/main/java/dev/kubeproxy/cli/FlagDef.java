package dev.kubeproxy.cli;

import dev.kubeproxy.config.ConfigDefaults;

/**
 * One command-line flag.
 *
 * @param name         the long name without dashes, e.g. "bind-address"
 * @param shorthand    a one-letter short name ("v", "h") or null
 * @param type         the value type
 * @param defaultText  the default as --help and the -v=1 flag dump print it ("" = zero value); null
 *                     for a flag that sets a field: its field's v1alpha1 default, read from the schema
 *                     when first asked (so that --version and --help's parse need no schema)
 * @param usage        the help text
 * @param deprecation  non-null for deprecated flags: the warning printed when used (they are hidden)
 * @param field        the KubeProxyConfiguration field the flag sets (dotted v1alpha1 path, e.g.
 *                     "clientConnection.kubeconfig"), or null when it sets none directly
 */
public record FlagDef(String name, String shorthand, FlagType type, String defaultText, String usage,
    String deprecation, String field) {

  public FlagDef(String name, String shorthand, FlagType type, String defaultText, String usage, String deprecation) {
    this(name, shorthand, type, defaultText, usage, deprecation, null);
  }

  @Override
  public String defaultText() {
    return defaultText == null && field != null ? ConfigDefaults.text(field) : defaultText;
  }

  public boolean isBool() {
    return type == FlagType.BOOL;
  }

  /** The name as errors quote it: "--name", or "-v, --v" with a shorthand. */
  public String display() {
    return shorthand == null ? "--" + name : "-" + shorthand + ", --" + name;
  }
}
