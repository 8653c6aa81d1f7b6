package dev.kubeproxy.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether the kernel runs IPv6 in this network namespace, as upstream's platformCheckSupported
 * (cmd/kube-proxy/app/server_linux.go) asks before it builds an IPv6 proxier: /proc/net/if_inet6
 * exists (IPv6 is built in and was not switched off at boot with ipv6.disable=1) and
 * net.ipv6.conf.all.disable_ipv6 is not 1 (switched off at run time).
 */
public final class Ipv6Support {
  static final String IF_INET6 = "net/if_inet6";
  static final String DISABLE_IPV6 = "sys/net/ipv6/conf/all/disable_ipv6";

  /** Reads a file under /proc by its relative path; empty when the file does not exist. */
  @FunctionalInterface
  public interface ProcReader {
    Optional<String> read(String relativePath) throws IOException;
  }

  private final ProcReader proc;

  public Ipv6Support(ProcReader proc) {
    this.proc = proc;
  }

  /** Reads the files under this /proc (the process's own namespace for "/proc"). */
  public static Ipv6Support ofProc(Path procRoot) {
    return new Ipv6Support(relative -> {
      try {
        return Optional.of(Files.readString(procRoot.resolve(relative)));
      } catch (NoSuchFileException e) {
        return Optional.empty();
      }
    });
  }

  /** The host's own: this process's /proc. */
  public static Ipv6Support host() {
    return ofProc(Path.of("/proc"));
  }

  /** True when IPv6 is usable; a file that cannot be read counts as no IPv6, as upstream's os.Stat error does. */
  public boolean enabled() {
    try {
      if (proc.read(IF_INET6).isEmpty()) {
        return false;
      }
      return !proc.read(DISABLE_IPV6).map(String::trim).map("1"::equals).orElse(false);
    } catch (IOException e) {
      return false;
    }
  }
}
