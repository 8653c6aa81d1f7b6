package dev.kubeproxy.cli;

import java.util.ArrayList;
import java.util.List;

/** --help in cobra/pflag's layout: usage line, description, then one aligned block of flags. */
public final class HelpPrinter {
  private HelpPrinter() {}

  private static final String DESCRIPTION = """
      The Kubernetes network proxy runs on each node. This reflects services as defined in the \
      Kubernetes API on each node and can do simple TCP, UDP, and SCTP stream forwarding or round robin \
      TCP, UDP, and SCTP forwarding across a set of backends. Service cluster IPs and ports are \
      currently found through Docker-links-compatible environment variables specifying ports opened \
      by the service proxy. There is an optional addon that provides cluster DNS for these cluster IPs. \
      The user must create a service with the apiserver API to configure the proxy.

      This implementation runs on Java 17 and Vert.x and programs iptables or nftables rules.""";

  public static String render() {
    List<String[]> rows = new ArrayList<>();
    int width = 0;
    List<FlagDef> sorted = new ArrayList<>(KubeProxyFlags.ALL);
    sorted.sort((a, b) -> a.name().compareTo(b.name())); // pflag lists flags sorted by name
    for (FlagDef d : sorted) {
      if (d.deprecation() != null) {
        continue; // deprecated flags are hidden, as upstream
      }
      String left = (d.shorthand() != null ? "  -" + d.shorthand() + ", --" : "      --") + d.name()
          + (d.type().helpName.isEmpty() ? "" : " " + d.type().helpName);
      width = Math.max(width, left.length());
      rows.add(new String[] {left, usage(d)});
    }
    StringBuilder sb = new StringBuilder();
    sb.append(DESCRIPTION).append("\n\nUsage:\n  kube-proxy [flags]\n\nFlags:\n");
    String pad = " ".repeat(width + 3);
    for (String[] row : rows) {
      String[] lines = row[1].split("\n");
      sb.append(row[0]).append(" ".repeat(width - row[0].length() + 3)).append(lines[0]).append('\n');
      for (int i = 1; i < lines.length; i++) {
        sb.append(pad).append(lines[i]).append('\n');
      }
    }
    return sb.toString();
  }

  private static String usage(FlagDef d) {
    String def = d.defaultText();
    boolean zero = def.isEmpty() || def.equals("false") || def.equals("0s") || def.equals("[]")
        || (def.equals("0") && d.type() != FlagType.INT32) || d.type() == FlagType.VERSION;
    if (zero) {
      return d.usage();
    }
    boolean quoted = d.type() == FlagType.STRING;
    return d.usage() + " (default " + (quoted ? "\"" + def + "\"" : def) + ")";
  }
}
