package dev.kubeproxy.cli;

/** The version this agent reports (the upstream release whose behaviour it implements). */
public final class Version {
  private Version() {}

  /**
   * The upstream release whose behaviour the agent follows: --version, /statusz and the start-up
   * log report it. Change it here only.
   */
  public static final String UPSTREAM = "v1.37.0";
  public static final String MAJOR = UPSTREAM.substring(1).split("\\.")[0];
  public static final String MINOR = UPSTREAM.substring(1).split("\\.")[1];

  /**
   * The version reported with this --version value: --version=vX.Y.Z overrides it, as upstream's
   * verflag does; unset, a boolean or "raw" leave {@link #UPSTREAM}.
   */
  public static String reported(String versionFlag) {
    if (versionFlag == null) {
      return UPSTREAM;
    }
    return switch (versionFlag.toLowerCase(java.util.Locale.ROOT)) {
      case "", "true", "1", "t", "false", "0", "f", "raw" -> UPSTREAM;
      default -> versionFlag;
    };
  }

  /** The line --version prints. */
  public static String line() {
    return "Kubernetes " + UPSTREAM;
  }

  /** --version=raw: the version info struct, in Go's %#v style. */
  public static String raw() {
    String arch = System.getProperty("os.arch");
    arch = "x86_64".equals(arch) ? "amd64" : "aarch64".equals(arch) ? "arm64" : arch;
    return "version.Info{Major:\"" + MAJOR + "\", Minor:\"" + MINOR + "\", GitVersion:\"" + UPSTREAM
        + "\", GitCommit:\"\", GitTreeState:\"\", BuildDate:\"\", GoVersion:\"\", Compiler:\"javac\", Platform:\"linux/"
        + arch + "\", Runtime:\"Java " + System.getProperty("java.version") + " (kube-proxy on Vert.x)\"}";
  }
}
