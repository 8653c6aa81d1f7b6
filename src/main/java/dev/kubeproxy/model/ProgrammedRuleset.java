package dev.kubeproxy.model;

import java.util.Collection;
import java.util.List;

/**
 * A backend's whole ruleset as a packet tracer reads it, for /debug/services' trace of a packet
 * through what is actually programmed: read back from the kernel, or in --dry-run the rules last
 * printed.
 *
 * @param form   the rule form of {@code text}: {@link #IPTABLES_SAVE} (iptables-save / iptables-restore text),
 *               {@link #NFT_JSON} (one family's kube-proxy table as {@code nft -j list table} prints it),
 *               {@link #NFT_COMMANDS} (nft commands one a line, applied in order to an empty table) or
 *               {@link #IPVS} (sections, see {@link #ipvs}); null when unavailable
 * @param source where the text was read: the command, or the dry run's last output
 * @param text   the rules, or "" when unavailable
 * @param error  why no ruleset can be given, or null
 */
public record ProgrammedRuleset(String form, String source, String text, String error) {
  public static final String IPTABLES_SAVE = "iptables-save";
  public static final String NFT_JSON = "nft-json";
  public static final String NFT_COMMANDS = "nft-commands";
  /** ipvs mode: the four sections below, each under its own header line. */
  public static final String IPVS = "ipvs";
  /** "ipvsadm -Sn" text: the virtual servers and their real servers. */
  public static final String SECTION_IPVSADM = "ipvsadm -Sn";
  /** "ipset save" text. */
  public static final String SECTION_IPSET = "ipset save";
  /** "iptables-save" text (filter and nat at least). */
  public static final String SECTION_IPTABLES = "iptables-save";
  /** The addresses on kube-ipvs0, one a line: the node delivers packets for them locally, where IPVS takes them. */
  public static final String SECTION_BOUND = "kube-ipvs0 addresses";
  /** Starts a section's header line; none of the four texts has a line starting so. */
  private static final String HEADER = "#### ";

  public static ProgrammedRuleset iptables(String source, String text) {
    return new ProgrammedRuleset(IPTABLES_SAVE, source, text, null);
  }

  public static ProgrammedRuleset nftJson(String source, String text) {
    return new ProgrammedRuleset(NFT_JSON, source, text, null);
  }

  public static ProgrammedRuleset nftCommands(String source, String text) {
    return new ProgrammedRuleset(NFT_COMMANDS, source, text, null);
  }

  /** ipvs mode's ruleset: each text as its tool prints it, in one text of headed sections. */
  public static ProgrammedRuleset ipvs(String source, String ipvsadm, String ipsets, String iptables,
      Collection<String> boundAddresses) {
    String text = HEADER + SECTION_IPVSADM + "\n" + ending(ipvsadm) + HEADER + SECTION_IPSET + "\n" + ending(ipsets)
        + HEADER + SECTION_IPTABLES + "\n" + ending(iptables) + HEADER + SECTION_BOUND + "\n"
        + ending(String.join("\n", boundAddresses));
    return new ProgrammedRuleset(IPVS, source, text, null);
  }

  public static ProgrammedRuleset unavailable(String source, String error) {
    return new ProgrammedRuleset(null, source, "", error);
  }

  public boolean available() {
    return error == null;
  }

  /**
   * One section of an {@link #IPVS} ruleset's text, each line ending in a newline.
   *
   * @throws IllegalArgumentException when the text has no such section
   */
  public String section(String name) {
    StringBuilder lines = new StringBuilder();
    boolean in = false;
    boolean found = false;
    for (String line : text.split("\n")) {
      if (line.startsWith(HEADER)) {
        in = line.substring(HEADER.length()).equals(name);
        found |= in;
      } else if (in) {
        lines.append(line).append('\n');
      }
    }
    if (!found) {
      throw new IllegalArgumentException("the ruleset read from " + source + " has no \"" + HEADER + name
          + "\" section; an ipvs ruleset has the sections " + List.of(SECTION_IPVSADM, SECTION_IPSET, SECTION_IPTABLES,
          SECTION_BOUND));
    }
    return lines.toString();
  }

  private static String ending(String text) {
    return text.isEmpty() || text.endsWith("\n") ? text : text + "\n";
  }
}
