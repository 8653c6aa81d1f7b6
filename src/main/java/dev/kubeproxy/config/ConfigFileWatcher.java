package dev.kubeproxy.config;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Watches the --config file for a change of what it holds: a write, a rename onto or away from its
 * name, its removal, or a Kubernetes ConfigMap volume update (the {@code ..data} symlink swap, which
 * upstream's watch on the file itself misses). It watches the file's directory (and the directory of
 * the file the path resolves to) with a WatchService on its own thread, and on every event compares
 * the file's identity (resolved path, inode), modification time, size and content digest with what
 * it saw at start: only a difference counts, so reads, chmod and other files in the directory do not.
 * The callback runs at most once, on the watcher thread.
 */
public final class ConfigFileWatcher implements Closeable {
  private final Path file;
  private final WatchService watchService;
  private final Consumer<String> onChange;
  private final Thread thread;
  private final Snapshot initial;
  private volatile boolean closed;

  /** What identifies the file's content; null fields when the file is gone. */
  record Snapshot(Path realPath, Object fileKey, long modifiedNanos, long size, byte[] digest) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Snapshot s && Objects.equals(realPath, s.realPath) && Objects.equals(fileKey, s.fileKey)
          && modifiedNanos == s.modifiedNanos && size == s.size && Arrays.equals(digest, s.digest);
    }

    @Override
    public int hashCode() {
      return Objects.hash(realPath, fileKey, modifiedNanos, size);
    }
  }

  /**
   * Starts watching. {@code onChange} receives a short description of what changed.
   *
   * @throws IOException when the directory cannot be watched (upstream: fatal at start)
   */
  public ConfigFileWatcher(Path file, Consumer<String> onChange) throws IOException {
    this.file = file.toAbsolutePath();
    this.onChange = onChange;
    this.watchService = this.file.getFileSystem().newWatchService();
    Set<Path> dirs = new LinkedHashSet<>();
    dirs.add(this.file.getParent());
    try {
      dirs.add(this.file.toRealPath().getParent());
    } catch (IOException e) {
      // the file is gone already: watching its directory is enough
    }
    try {
      for (Path dir : dirs) {
        dir.register(watchService, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE,
            StandardWatchEventKinds.ENTRY_MODIFY);
      }
    } catch (IOException e) {
      watchService.close();
      throw e;
    }
    this.initial = snapshot(this.file);
    this.thread = new Thread(this::run, "config-file-watcher");
    this.thread.setDaemon(true);
    this.thread.start();
  }

  private void run() {
    try {
      while (!closed) {
        WatchKey key = watchService.take();
        key.pollEvents(); // any event in the watched directories leads to a comparison
        key.reset();
        Snapshot now = snapshot(file);
        if (!Objects.equals(initial, now)) {
          closed = true;
          onChange.accept(describe(now));
          return;
        }
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      // closed: stop quietly
    } finally {
      try {
        watchService.close();
      } catch (IOException ignored) {
        // nothing more to do
      }
    }
  }

  private String describe(Snapshot now) {
    if (now == null) {
      return file + " was removed or renamed";
    }
    if (initial != null && !Objects.equals(initial.realPath(), now.realPath())) {
      return file + " now resolves to " + now.realPath();
    }
    return file + " was written or replaced";
  }

  static Snapshot snapshot(Path file) {
    try {
      Path real = file.toRealPath();
      BasicFileAttributes attrs = Files.readAttributes(real, BasicFileAttributes.class);
      return new Snapshot(real, attrs.fileKey(), attrs.lastModifiedTime().to(java.util.concurrent.TimeUnit.NANOSECONDS),
          attrs.size(), digest(real));
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      return new Snapshot(null, null, 0, -1, new byte[0]);
    }
  }

  /** The digest of the file's first bytes: no more than the agent would read (a path may turn into /dev/zero). */
  private static byte[] digest(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[8192];
      long left = ConfigFileReader.MAX_BYTES + 1L;
      int n;
      while (left > 0 && (n = in.read(buf, 0, (int) Math.min(buf.length, left))) > 0) {
        md.update(buf, 0, n);
        left -= n;
      }
      return md.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    watchService.close();
  }
}
