package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.backend.netfilter.Sysctls;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.model.ProxyBackend.SyncException;
import java.io.IOException;

/**
 * The sysctls ipvs mode needs (pkg/proxy/ipvs/proxier.go NewProxier): vs/conntrack,
 * conn_reuse_mode on kernels that need it, expire_nodest_conn, expire_quiescent_template,
 * ip_forward, and with strictARP arp_ignore and arp_announce.
 */
final class IpvsSysctls {
  private final Sysctls sysctls;

  IpvsSysctls(Sysctls sysctls) {
    this.sysctls = sysctls;
  }

  /**
   * Writes every value that differs.
   *
   * @param osVersion the running kernel's version ("6.1.0-57-amd64"): conn_reuse_mode depends on it
   * @throws SyncException naming the sysctl that could not be written
   */
  void apply(boolean strictARP, String osVersion) throws SyncException {
    ensure("net/ipv4/vs/conntrack", 1);
    int[] kernel = kernelVersion(osVersion);
    if (kernel != null && less(kernel, 4, 1)) {
      Log.error("Can't set sysctl, kernel version doesn't satisfy minimum version requirements", "sysctl",
          "net/ipv4/vs/conn_reuse_mode", "minimumKernelVersion", "4.1");
    } else if (kernel != null && !less(kernel, 5, 9)) {
      Log.v(2).info("Left as-is", "sysctl", "net/ipv4/vs/conn_reuse_mode"); // the kernel's conn_reuse_mode fix (5.9): pkg/proxy/ipvs/proxier.go NewProxier
    } else {
      ensure("net/ipv4/vs/conn_reuse_mode", 0);
    }
    ensure("net/ipv4/vs/expire_nodest_conn", 1);
    ensure("net/ipv4/vs/expire_quiescent_template", 1);
    ensure("net/ipv4/ip_forward", 1);
    if (strictARP) {
      ensure("net/ipv4/conf/all/arp_ignore", 1);
      ensure("net/ipv4/conf/all/arp_announce", 2);
    }
  }

  /** upstream proxyutil.EnsureSysctl: writes only a different value, and says so. */
  private void ensure(String name, int value) throws SyncException {
    String current = sysctls.read(name.replace('/', '.'));
    if (current != null && current.equals(Integer.toString(value))) {
      return;
    }
    try {
      sysctls.write(name.replace('/', '.'), Integer.toString(value));
      Log.v(1).info("Changed sysctl", "name", name, "before", current, "after", value);
    } catch (IOException e) {
      throw new SyncException("can't set sysctl " + name + " to " + value + ": " + e.getMessage(), e);
    }
  }

  /** Major and minor of a kernel version string; null when it does not start with them. */
  static int[] kernelVersion(String osVersion) {
    String[] parts = osVersion.split("[.-]");
    try {
      return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static boolean less(int[] v, int major, int minor) {
    return v[0] < major || (v[0] == major && v[1] < minor);
  }
}
