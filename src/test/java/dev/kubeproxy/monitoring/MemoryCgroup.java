package dev.kubeproxy.monitoring;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A memory cgroup of the test's own with a limit, for a child process to run in (cgroup v2, or
 * the v1 memory controller). Removed by {@link #close} once the process has ended.
 */
final class MemoryCgroup implements AutoCloseable {
  private static final Path ROOT = Path.of("/sys/fs/cgroup");
  private final Path dir;

  private MemoryCgroup(Path dir) {
    this.dir = dir;
  }

  /** A new cgroup with the given limit, or null when this machine does not let the test make one. */
  static MemoryCgroup create(String name, long limitBytes) {
    boolean v2 = Files.isRegularFile(ROOT.resolve("cgroup.controllers"));
    Path dir = v2 ? ROOT.resolve(name) : ROOT.resolve("memory").resolve(name);
    try {
      Files.createDirectory(dir);
      Files.writeString(dir.resolve(v2 ? "memory.max" : "memory.limit_in_bytes"), Long.toString(limitBytes));
      return new MemoryCgroup(dir);
    } catch (IOException | RuntimeException e) {
      try {
        Files.deleteIfExists(dir);
      } catch (IOException ignored) {
        // nothing was made
      }
      return null;
    }
  }

  /** A command prefix that moves the shell into the cgroup, then execs the rest of the command. */
  List<String> enterAndExec() {
    return List.of("sh", "-c", "echo $$ > '" + dir.resolve("cgroup.procs") + "' && exec \"$@\"", "sh");
  }

  @Override
  public void close() throws IOException {
    for (int i = 0; i < 50; i++) { // the kernel refuses rmdir while the last process is still leaving
      try {
        Files.deleteIfExists(dir);
        return;
      } catch (IOException e) {
        try {
          Thread.sleep(100);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }
}
