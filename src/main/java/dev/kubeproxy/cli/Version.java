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
  private static volatile String gitVersion = UPSTREAM;

  public static String gitVersion() {
    return gitVersion;
  }

  /** --version=vX.Y.Z overrides the reported version, as upstream's verflag does. */
  static void override(String version) {
    gitVersion = version;
  }

  /** The line --version prints. */
  public static String line() {
    return "Kubernetes " + gitVersion;
  }

  /** --version=raw: the version info struct, in Go's %#v style. */
  public static String raw() {
    String arch = System.getProperty("os.arch");
    arch = "x86_64".equals(arch) ? "amd64" : "aarch64".equals(arch) ? "arm64" : arch;
    return "version.Info{Major:\"" + MAJOR + "\", Minor:\"" + MINOR + "\", GitVersion:\"" + gitVersion
        + "\", GitCommit:\"\", GitTreeState:\"\", BuildDate:\"\", GoVersion:\"\", Compiler:\"javac\", Platform:\"linux/"
        + arch + "\", Runtime:\"Java " + System.getProperty("java.version") + " (kube-proxy on Vert.x)\"}";
  }
}
