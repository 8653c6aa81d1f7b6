package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.testutil.RecordingRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import dev.kubeproxy.testutil.TempTrees;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A network namespace of our own ("kp-ipt-" + random suffix) in which tests and the benchmark write
 * rules: nothing reaches the root namespace's netfilter. Deleted on close.
 */
final class ScratchNamespace implements AutoCloseable {
  final String name;
  final RecordingRunner runner;

  private ScratchNamespace(String name) {
    this.name = name;
    // keeps the last iptables-restore input: the proxier itself keeps none of it
    this.runner = new RecordingRunner(CommandRunner.inNetns(name));
  }

  static ScratchNamespace create() throws IOException {
    String name = "kp-ipt-" + UUID.randomUUID().toString().substring(0, 8);
    CommandRunner.Result result = new ProcessCommandRunner().run(List.of("ip", "netns", "add", name));
    if (!result.ok()) {
      throw new IOException("ip netns add " + name + " failed: " + result.stderr());
    }
    ScratchNamespace ns = new ScratchNamespace(name);
    ns.exec("ip", "link", "set", "lo", "up");
    return ns;
  }

  /** Why kernel tests cannot run here, or null when they can (root, ip and both iptables backends). */
  static String whyUnavailable() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return "needs root to create network namespaces";
    }
    for (String tool : List.of("ip", "iptables-legacy-restore", "iptables-nft-restore", "ip6tables-legacy-restore")) {
      if (!onPath(tool)) {
        return tool + " is not installed";
      }
    }
    return null;
  }

  /**
   * A sysctl tree of the test's own under root: what the iptables proxier's privileged set-up
   * writes (route_localnet) and reads (be_liberal), so that it touches nothing of the host's.
   */
  static void fakeSysctls(Path root) throws java.io.IOException {
    Files.createDirectories(root.resolve("net/ipv4/conf/all"));
    Files.createDirectories(root.resolve("net/netfilter"));
    Files.writeString(root.resolve("net/netfilter/nf_conntrack_tcp_be_liberal"), "0\n");
  }

  static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
      if (Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return Files.isExecutable(Path.of("/usr/sbin", tool)) || Files.isExecutable(Path.of("/sbin", tool));
  }

  CommandRunner.Result exec(String... argv) throws IOException {
    return runner.run(List.of(argv));
  }

  /** Output of a command that must succeed. */
  String out(String... argv) throws IOException {
    CommandRunner.Result result = exec(argv);
    if (!result.ok()) {
      throw new IOException(String.join(" ", argv) + " failed: " + result.stderr());
    }
    return result.stdout();
  }

  @Override
  public void close() throws IOException {
    new ProcessCommandRunner().run(List.of("ip", "netns", "del", name));
  }

  /**
   * A scratch namespace and a fake sysctl tree per test ({@code @RegisterExtension}): the test is
   * skipped with the reason where kernel tests cannot run, and both are removed after it.
   */
  static final class PerTest implements BeforeEachCallback, AfterEachCallback {
    ScratchNamespace ns;
    Path sysctlRoot;

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
      String why = whyUnavailable();
      Assumptions.assumeTrue(why == null, () -> "skipped: " + why);
      ns = create();
      sysctlRoot = Files.createTempDirectory("kp-sysctl");
      fakeSysctls(sysctlRoot);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
      if (ns != null) {
        ns.close();
      }
      if (sysctlRoot != null) {
        TempTrees.deleteTree(sysctlRoot);
      }
    }
  }
}
