package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.Transaction;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.net.IpFamily;
import java.io.IOException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The start-up checks of nftables mode (pkg/proxy/nftables/proxier.go getNFTablesInterface, and
 * knftables.New for the nft version): the nft binary is there and at least
 * 1.0.1, the kernel is at least 5.13 (unless KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK is non-empty),
 * and the kernel accepts a transaction that uses every feature the ruleset needs ("nft --check",
 * which validates in the kernel without committing).
 */
public final class NftablesSupportCheck {
  public static final String SKIP_KERNEL_CHECK_ENV = "KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK";
  private static final Pattern VERSION = Pattern.compile("v(\\d+)\\.(\\d+)(?:\\.(\\d+))?");

  private NftablesSupportCheck() {}

  /** A failed check, with a message that says what is missing. */
  public static final class UnsupportedException extends Exception {
    public UnsupportedException(String message) {
      super(message);
    }
  }

  /**
   * Runs every check; returns whether nft accepts comments on tables, chains, sets and maps.
   *
   * @param kernelRelease e.g. "6.1.0-18-amd64" (System.getProperty("os.version") on Linux)
   * @param skipKernelCheck the skip variable's value (null or empty: check)
   */
  public static boolean check(IpFamily family, CommandRunner runner, NftCommand nft, String kernelRelease,
      String skipKernelCheck) throws UnsupportedException {
    CommandRunner.Result version;
    try {
      version = runner.run(List.of("nft", "--version"));
    } catch (IOException e) {
      throw new UnsupportedException("kube-proxy in nftables mode needs the nft binary, which was not found on"
          + " PATH (" + e.getMessage() + "); install the nftables package or use --proxy-mode=iptables");
    }
    if (!version.ok()) {
      throw new UnsupportedException("\"nft --version\" failed: " + version.stderr().strip());
    }
    int[] nftVersion = parseVersion(version.stdout());
    if (nftVersion == null) {
      throw new UnsupportedException("cannot read the nft version from \"" + version.stdout().strip() + "\"");
    }
    if (compare(nftVersion, new int[] {1, 0, 1}) < 0) {
      throw new UnsupportedException("kube-proxy in nftables mode requires nft 1.0.1 or later, found "
          + version.stdout().strip());
    }
    // As upstream since v1.33 (pkg/proxy/nftables/proxier.go, getNFTablesInterface):
    // only a non-empty value skips the check; unset and "" (e.g. an empty env entry in a Pod spec) check.
    if (skipKernelCheck == null || skipKernelCheck.isEmpty()) {
      int[] kernel = parseKernel(kernelRelease);
      if (kernel == null || compare(kernel, new int[] {5, 13, 0}) < 0) {
        throw new UnsupportedException("kube-proxy in nftables mode requires kernel 5.13 or later (found "
            + kernelRelease + "); set " + SKIP_KERNEL_CHECK_ENV + "=1 to try anyway");
      }
    }
    String fam = Transaction.familyKeyword(family);
    boolean comments = true;
    try {
      nft.check("add table " + fam + " kube-proxy { comment \"rules for kube-proxy\" ; }\n");
    } catch (NftablesException withComment) {
      comments = false;
      try {
        nft.check("add table " + fam + " kube-proxy\n");
      } catch (NftablesException e) {
        throw new UnsupportedException("nftables is not usable (\"nft --check add table " + fam
            + " kube-proxy\" failed; is the nf_tables kernel module available?): " + e.getMessage());
      }
    }
    try {
      nft.check(featureProbe(new FamilySyntax(family)));
    } catch (NftablesException e) {
      throw new UnsupportedException("the kernel lacks nftables features that kube-proxy needs (nat, fib,"
          + " numgen, concatenated maps, dynamic sets, reject): " + e.getMessage());
    }
    return comments;
  }

  /** A transaction using each kind of expression the ruleset uses; checked, never committed. */
  static String featureProbe(FamilySyntax syntax) {
    String t = Transaction.familyKeyword(syntax.family()) + " kube-proxy";
    String ip = syntax.ip();
    String a = syntax.addrType();
    String ep1 = syntax.family() == IpFamily.IPv6 ? "fd00::1" : "10.0.0.1";
    String ep2 = syntax.family() == IpFamily.IPv6 ? "fd00::2" : "10.0.0.2";
    return String.join("\n",
        "add table " + t,
        "add chain " + t + " probe-nat { type nat hook prerouting priority -100 ; }",
        "add chain " + t + " probe-filter { type filter hook input priority -110 ; }",
        "add chain " + t + " probe-dispatch",
        "add chain " + t + " probe-post { type nat hook postrouting priority 100 ; }",
        "add map " + t + " probe-map { type " + a + " . inet_proto . inet_service : verdict ; }",
        "add set " + t + " probe-affinity { type " + a + " ; flags dynamic,timeout ; timeout 10s ; }",
        "add rule " + t + " probe-nat " + ip + " daddr . meta l4proto . th dport vmap @probe-map",
        "add rule " + t + " probe-nat fib daddr type local " + syntax.notLoopbackDestinationText() + " jump probe-dispatch",
        "add rule " + t + " probe-dispatch update @probe-affinity { " + ip + " saddr }",
        "add rule " + t + " probe-dispatch meta l4proto tcp dnat " + ip + " addr . port to numgen random mod 2 map { 0 : "
            + ep1 + " . 80 , 1 : " + ep2 + " . 80 }",
        "add map " + t + " probe-targets { typeof numgen random mod 1 : " + ip + " daddr . tcp dport ; flags interval ; }",
        "add rule " + t + " probe-dispatch meta l4proto tcp dnat " + ip + " addr . port to numgen random mod 24504480"
            + " offset 33554432 map @probe-targets",
        "add element " + t + " probe-targets { 33554432-45806671 : " + ep1 + " . 80 , 45806672-58058911 : " + ep2
            + " . 80 }",
        "add set " + t + " probe-hairpin { type " + a + " . " + a + " . inet_proto . inet_service ; }",
        "add rule " + t + " probe-post ct status dnat " + ip + " saddr . " + ip + " daddr . meta l4proto . th dport"
            + " @probe-hairpin return",
        "add rule " + t + " probe-filter ct state new reject",
        "add rule " + t + " probe-post mark set mark or 0x4000 masquerade fully-random",
        "");
  }

  static int[] parseVersion(String text) {
    Matcher m = VERSION.matcher(text);
    if (!m.find()) {
      return null;
    }
    return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
        m.group(3) == null ? 0 : Integer.parseInt(m.group(3))};
  }

  static int[] parseKernel(String release) {
    if (release == null) {
      return null;
    }
    Matcher m = Pattern.compile("^(\\d+)\\.(\\d+)(?:\\.(\\d+))?").matcher(release);
    if (!m.find()) {
      return null;
    }
    return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
        m.group(3) == null ? 0 : Integer.parseInt(m.group(3))};
  }

  private static int compare(int[] a, int[] b) {
    for (int i = 0; i < 3; i++) {
      if (a[i] != b[i]) {
        return Integer.compare(a[i], b[i]);
      }
    }
    return 0;
  }
}
