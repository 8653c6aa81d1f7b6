package dev.kubeproxy.model;

/**
 * A backend's whole ruleset as a packet tracer reads it, for /debug/services' trace of a packet
 * through what is actually programmed: read back from the kernel, or in --dry-run the rules last
 * printed.
 *
 * @param form   the rule form of {@code text}: {@link #IPTABLES_SAVE} (iptables-save / iptables-restore text)
 *               or {@link #NFT_JSON} (one family's kube-proxy table as {@code nft -j list table} prints it);
 *               null when unavailable
 * @param source where the text was read: the command, or the dry run's last output
 * @param text   the rules, or "" when unavailable
 * @param error  why no ruleset can be given, or null
 */
public record ProgrammedRuleset(String form, String source, String text, String error) {
  public static final String IPTABLES_SAVE = "iptables-save";
  public static final String NFT_JSON = "nft-json";

  public static ProgrammedRuleset iptables(String source, String text) {
    return new ProgrammedRuleset(IPTABLES_SAVE, source, text, null);
  }

  public static ProgrammedRuleset nftJson(String source, String text) {
    return new ProgrammedRuleset(NFT_JSON, source, text, null);
  }

  public static ProgrammedRuleset unavailable(String source, String error) {
    return new ProgrammedRuleset(null, source, "", error);
  }

  public boolean available() {
    return error == null;
  }
}
