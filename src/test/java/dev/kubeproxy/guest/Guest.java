package dev.kubeproxy.guest;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.e2e.Requirements;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs commands under a kernel that has IP_VS (this machine's has not): src/test/guest/run-in-guest
 * boots Debian's stock kernel in QEMU over this machine's own root filesystem. Tests that need it
 * skip, saying what is missing, where it cannot run.
 */
public final class Guest {
  static final Path RUNNER = Path.of("src", "test", "guest", "run-in-guest").toAbsolutePath();
  static final Path KERNEL_DIR = Path.of(System.getenv().getOrDefault("KP_GUEST_KERNEL_DIR", "/var/cache/kube-proxy-guest"));

  private Guest() {}

  /** Skips the calling test unless a guest can be booted here. */
  public static void assumeAvailable() {
    assumeTrue(Requirements.isRoot(), "the guest shares / over 9p, which needs root");
    assumeTrue(Requirements.onPath("qemu-system-x86_64"), "qemu-system-x86_64 is missing (Debian package qemu-system-x86)");
    assumeTrue(Requirements.onPath("busybox"), "busybox is missing (Debian package busybox-static)");
    assumeTrue(Files.isDirectory(KERNEL_DIR.resolve("lib/modules")), "no guest kernel in " + KERNEL_DIR
        + " (.ci/run unpacks linux-image-amd64's package there)");
  }

  /** Runs argv as root in a fresh guest, in this working directory; its output and status. */
  public static CommandRunner.Result run(List<String> argv) throws IOException {
    return run(argv, CommandRunner.DEFAULT_TIMEOUT);
  }

  /**
   * As {@link #run(List)}, within the given limit instead of CommandRunner's 5 minutes: a guest that
   * runs JVMs takes minutes under emulation. The guest itself stops a minute earlier
   * (KP_GUEST_TIMEOUT, exit 124), so its console log still comes back.
   */
  public static CommandRunner.Result run(List<String> argv, Duration limit) throws IOException {
    List<String> command = new ArrayList<>(List.of("env",
        "KP_GUEST_TIMEOUT=" + Math.max(60, limit.toSeconds() - 60), RUNNER.toString()));
    command.addAll(argv);
    return new ProcessCommandRunner(List.of(), null, limit).run(command);
  }
}
