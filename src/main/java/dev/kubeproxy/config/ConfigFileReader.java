package dev.kubeproxy.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads the --config file with a bound on its size. A KubeProxyConfiguration is a few kilobytes;
 * without a bound a wrong path such as {@code /dev/zero} (no end) or a huge file would fill the heap,
 * and the YAML scanner takes time that grows with the square of a line's length.
 */
public final class ConfigFileReader {
  private ConfigFileReader() {}

  /** 1 MiB: hundreds of times the size of a real configuration file. */
  public static final int MAX_BYTES = 1 << 20;

  /** The file is longer than {@link #MAX_BYTES}. */
  public static final class TooLargeException extends IOException {
    TooLargeException(int max) {
      super("the file is larger than " + max + " bytes, too large for a KubeProxyConfiguration; check that "
          + "--config names the configuration file");
    }
  }

  /** The file's bytes, reading at most {@code max + 1} of them. */
  public static byte[] read(Path file, int max) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] data = in.readNBytes(max + 1);
      if (data.length > max) {
        throw new TooLargeException(max);
      }
      return data;
    }
  }

  public static byte[] read(Path file) throws IOException {
    return read(file, MAX_BYTES);
  }
}
