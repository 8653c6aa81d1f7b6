package dev.kubeproxy.backend.netfilter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads and writes sysctls as files under /proc/sys of the agent's own network namespace. */
public final class Sysctls {
  private final Path root;

  public Sysctls() {
    this(Path.of("/proc/sys"));
  }

  /** A different root, for tests. */
  public Sysctls(Path root) {
    this.root = root;
  }

  private Path pathOf(String name) {
    return root.resolve(name.replace('.', '/'));
  }

  /** The value, or null when the sysctl does not exist or cannot be read. */
  public String read(String name) {
    try {
      return Files.readString(pathOf(name), StandardCharsets.US_ASCII).trim();
    } catch (IOException e) {
      return null;
    }
  }

  public void write(String name, String value) throws IOException {
    Files.writeString(pathOf(name), value + "\n", StandardCharsets.US_ASCII);
  }
}
