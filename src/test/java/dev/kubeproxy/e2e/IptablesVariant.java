package dev.kubeproxy.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The two iptables backends (xtables "legacy" and "nft"). The agent is pinned to one by both
 * means an operator's node would show: a PATH whose iptables, ip6tables and their -save/-restore
 * are that variant's multi-call binary, and a kubelet-style hint chain (KUBE-IPTABLES-HINT in
 * mangle) in that variant only, which backend detection honours.
 */
public enum IptablesVariant {
  LEGACY("legacy"),
  NFT("nft");

  public static final List<String> KUBELET_CHAINS = List.of("KUBE-IPTABLES-HINT", "KUBE-KUBELET-CANARY");

  private final String suffix;

  IptablesVariant(String suffix) {
    this.suffix = suffix;
  }

  public String binary(boolean v6) {
    return (v6 ? "ip6tables-" : "iptables-") + suffix;
  }

  public String saveBinary(boolean v6) {
    return binary(v6) + "-save";
  }

  /** A folder with iptables, ip6tables and their -save/-restore pointing at this variant. */
  public Path binDir(Path parent) throws IOException {
    Path dir = Files.createDirectories(parent.resolve("bin-iptables-" + suffix));
    Path multi = multiBinary();
    for (String tool : List.of("iptables", "iptables-save", "iptables-restore",
        "ip6tables", "ip6tables-save", "ip6tables-restore")) {
      Path link = dir.resolve(tool);
      Files.deleteIfExists(link);
      Files.createSymbolicLink(link, multi);
    }
    return dir;
  }

  /** The variant's multi-call binary (it picks the tool from the name it is called by). */
  private Path multiBinary() throws IOException {
    for (String d : List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")) {
      Path p = Path.of(d, "xtables-" + suffix + "-multi");
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    throw new IOException("xtables-" + suffix + "-multi not found; is iptables " + suffix + " installed?");
  }

  /** Creates the kubelet-style hint chain in this variant, for both families. */
  public void markNode(Netns node) {
    for (boolean v6 : new boolean[] {false, true}) {
      node.must(binary(v6), "-w", "5", "-t", "mangle", "-N", "KUBE-IPTABLES-HINT");
    }
  }

  /** This variant's full ruleset dump for one family. */
  public String save(Netns node, boolean v6) {
    return node.output(saveBinary(v6));
  }
}
