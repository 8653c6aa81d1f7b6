package dev.kubeproxy.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Integer sysctls read and written under a root (normally /proc/sys). Blocking: call from a worker. */
public final class Sysctl {
  private final Path root;

  public Sysctl(Path root) {
    this.root = root;
  }

  public Path path(String entry) {
    return root.resolve(entry);
  }

  /** The current value of an entry such as "net/netfilter/nf_conntrack_max". */
  public int get(String entry) throws IOException {
    return readInt(path(entry));
  }

  public void set(String entry, int value) throws IOException {
    writeInt(path(entry), value);
  }

  /** Reads a file holding one integer (surrounding whitespace ignored). */
  public static int readInt(Path file) throws IOException {
    String text;
    try {
      text = readSmallFile(file).trim();
    } catch (IOException e) {
      throw new IOException("open " + file + ": " + reason(e), e);
    }
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw new IOException("strconv.Atoi: parsing \"" + text + "\" in " + file + ": invalid syntax", e);
    }
  }

  /**
   * Reads a small kernel file in one large read: procfs sysctl files answer only the first read()
   * of an open file, and Files.readString probes a size-0 file with a 1-byte read (it would see
   * "2" of "262144").
   */
  public static String readSmallFile(Path file) throws IOException {
    try (java.io.InputStream in = Files.newInputStream(file)) {
      byte[] buf = new byte[4096];
      int n = 0;
      int r;
      while (n < buf.length && (r = in.read(buf, n, buf.length - n)) > 0) {
        n += r;
      }
      return new String(buf, 0, n, StandardCharsets.UTF_8);
    }
  }

  /** Writes one integer the way Go's os.WriteFile does (no newline, no create). */
  public static void writeInt(Path file, int value) throws IOException {
    try {
      Files.writeString(file, Integer.toString(value), StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.WRITE, java.nio.file.StandardOpenOption.TRUNCATE_EXISTING);
    } catch (IOException e) {
      throw new IOException("write " + file + ": " + reason(e), e);
    }
  }

  /** errno-style text for the common file errors. */
  static String reason(IOException e) {
    if (e instanceof java.nio.file.NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied";
    }
    String m = e.getMessage();
    if (e instanceof java.nio.file.FileSystemException fse && fse.getReason() != null) {
      m = fse.getReason();
    }
    return m == null ? e.toString() : m.toLowerCase(java.util.Locale.ROOT);
  }
}
