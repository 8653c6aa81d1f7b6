package dev.kubeproxy.backend.conntrack;

import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.host.HostPaths;
import dev.kubeproxy.host.Sysctl;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The conntrack limits and timeouts kube-proxy sets at start (cmd/kube-proxy/app/server_linux.go setupConntrack): each value is
 * written only when the kernel's differs, every write logs "Set sysctl". nf_conntrack_max is only
 * ever raised, never lowered below what the host has, and a refused write of it is logged, not
 * fatal (upstream 1.38, cmd/kube-proxy/app/conntrack.go); a read-only /sys that stops the hashsize
 * increase is reported (upstream records an event). Any other failure is fatal.
 * Blocking: run on a worker.
 */
public final class ConntrackSysctls {
  /** What the caller must report: whether the hashsize could not be raised because /sys is read-only. */
  public enum Outcome { APPLIED, READ_ONLY_SYSFS }

  /** Upstream's Warning event note for {@link Outcome#READ_ONLY_SYSFS} (reason "readOnlySysFS"). */
  public static final String READ_ONLY_SYSFS_NOTE = "CRI error: /sys is read-only: cannot modify conntrack limits, "
      + "problems may arise later (If running Docker, see docker issue #24000)";

  /** Thrown for upstream's errReadOnlySysFS. */
  static final class ReadOnlySysFsException extends IOException {
    ReadOnlySysFsException() {
      super("readOnlySysFS");
    }
  }

  private final HostPaths paths;
  private final Sysctl sysctl;

  public ConntrackSysctls(HostPaths paths) {
    this.paths = paths;
    this.sysctl = new Sysctl(paths.procSys());
  }

  /** Applies the conntrack section; throws (fatal) on any failure but a read-only sysfs. */
  public Outcome apply(KubeProxyConfiguration.Conntrack c) throws IOException {
    Outcome outcome = Outcome.APPLIED;
    int max = conntrackMax(c, detectNumCpu());
    if (max > 0) {
      try {
        setMax(max);
      } catch (ReadOnlySysFsException e) {
        outcome = Outcome.READ_ONLY_SYSFS;
      }
    }
    int established = seconds(c.tcpEstablishedTimeout);
    if (established > 0) {
      setIntSysctl("nf_conntrack_tcp_timeout_established", established);
    }
    int closeWait = seconds(c.tcpCloseWaitTimeout);
    if (closeWait > 0) {
      setIntSysctl("nf_conntrack_tcp_timeout_close_wait", closeWait);
    }
    if (c.tcpBeLiberal) {
      setIntSysctl("nf_conntrack_tcp_be_liberal", 1);
    }
    int udp = seconds(c.udpTimeout);
    if (udp > 0) {
      setIntSysctl("nf_conntrack_udp_timeout", udp);
    }
    int udpStream = seconds(c.udpStreamTimeout);
    if (udpStream > 0) {
      setIntSysctl("nf_conntrack_udp_timeout_stream", udpStream);
    }
    return outcome;
  }

  /**
   * Upper bound of the per-core scaled value (upstream since 1.36, cmd/kube-proxy/app/conntrack.go): on machines with many cores
   * maxPerCore × CPUs reserved far more kernel memory than any node uses.
   */
  public static final int SCALED_CONNTRACK_MAX_CAP = 1_048_576;

  /**
   * nf_conntrack_max: maxPerCore × CPUs capped at {@link #SCALED_CONNTRACK_MAX_CAP}, at least min;
   * 0 (leave it alone) when maxPerCore is unset or 0, in which case min is ignored too. An
   * explicit min above the cap is the operator's choice and is kept.
   */
  public static int conntrackMax(KubeProxyConfiguration.Conntrack c, int numCpu) {
    if (c.maxPerCore == null || c.maxPerCore <= 0) {
      return 0;
    }
    int floor = c.min == null ? 0 : c.min;
    long scaled = Math.min((long) c.maxPerCore * numCpu, SCALED_CONNTRACK_MAX_CAP);
    if (scaled > floor) {
      Log.v(3).info("GetConntrackMax: using scaled conntrack-max-per-core");
      return (int) scaled;
    }
    Log.v(3).info("GetConntrackMax: using conntrack-min");
    return floor;
  }

  /** The number of online CPUs from sysfs, else the JVM's count. */
  public int detectNumCpu() {
    try {
      int n = countCpuList(Sysctl.readSmallFile(paths.cpuOnline()).trim());
      if (n > 0) {
        return n;
      }
    } catch (IOException | RuntimeException e) {
      // fall through to the runtime's count, as upstream falls back to Go's NumCPU
    }
    return Runtime.getRuntime().availableProcessors();
  }

  /** Counts a kernel CPU list such as "0-3,8,10-11". */
  static int countCpuList(String list) {
    int n = 0;
    for (String part : list.split(",")) {
      if (part.isBlank()) {
        continue;
      }
      int dash = part.indexOf('-');
      if (dash < 0) {
        Integer.parseInt(part.trim());
        n++;
      } else {
        n += Integer.parseInt(part.substring(dash + 1).trim()) - Integer.parseInt(part.substring(0, dash).trim()) + 1;
      }
    }
    return n;
  }

  private void setMax(int max) throws IOException {
    String entry = "net/netfilter/nf_conntrack_max";
    Integer current;
    try {
      current = sysctl.get(entry);
    } catch (IOException e) {
      current = null;
    }
    if (current != null && current > max) {
      // The host (or its administrator) allows more connections already: lowering it would drop them.
      Log.info("Not lowering nf_conntrack_max", "current", current, "nfConntrackMax", max);
      return;
    }
    Log.info("Setting nf_conntrack_max", "nfConntrackMax", max);
    if (current == null || current != max) {
      try {
        Log.info("Set sysctl", "entry", entry, "value", max);
        sysctl.set(entry, max);
      } catch (IOException e) {
        // e.g. a container without the right to write it: the node still works with the host's limit
        Log.error("Failed to set nf_conntrack_max; continuing with the host's value", e, "nfConntrackMax", max);
        return;
      }
    }
    // The hashsize parameter is global: only raise it, and only when sysfs is writable.
    int hashsize = Sysctl.readInt(paths.hashsize());
    if (hashsize >= max / 4) {
      return;
    }
    if (!sysfsWritable()) {
      throw new ReadOnlySysFsException();
    }
    Log.info("Setting conntrack hashsize", "conntrackHashsize", max / 4);
    Sysctl.writeInt(paths.hashsize(), max / 4);
  }

  /** Whether the first sysfs mount in the mount table is mounted "rw". */
  private boolean sysfsWritable() throws IOException {
    for (String line : Files.readAllLines(paths.procMounts(), StandardCharsets.UTF_8)) {
      String[] f = line.trim().split("\\s+");
      if (f.length < 4 || !"sysfs".equals(f[2])) {
        continue;
      }
      String[] opts = f[3].split(",");
      if (opts.length > 0 && "rw".equals(opts[0])) {
        return true;
      }
      Log.error("Sysfs is not writable", "mountPoint", f[1], "mountOptions", "[" + String.join(" ", opts) + "]");
      return false;
    }
    throw new IOException("no sysfs mounted");
  }

  private void setIntSysctl(String name, int value) throws IOException {
    String entry = "net/netfilter/" + name;
    Integer current;
    try {
      current = sysctl.get(entry);
    } catch (IOException e) {
      current = null; // unreadable: try the write, which reports the real problem
    }
    if (current == null || current != value) {
      Log.info("Set sysctl", "entry", entry, "value", value);
      sysctl.set(entry, value);
    }
  }

  /** Whole seconds of a duration (truncated); 0 for unset. */
  static int seconds(Duration d) {
    if (d == null || d.isNegative()) {
      return 0;
    }
    return (int) Math.min(d.getSeconds(), Integer.MAX_VALUE);
  }

  /** The sysctl file of a conntrack entry (for tests and diagnostics). */
  public Path sysctlPath(String name) {
    return sysctl.path("net/netfilter/" + name);
  }
}
