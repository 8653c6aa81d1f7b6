package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.logging.Log;
import java.io.IOException;
import java.util.List;

/**
 * upstream CanUseIPVSProxier (pkg/proxy/ipvs/proxier.go): the kernel has IPVS, the ipset tool is
 * at least 6.0, and the configured scheduler works (an existing virtual server uses it, or a probe
 * virtual server on a documentation address, 198.51.100.0:20000/TCP, can be created with it).
 */
public final class IpvsSupport {
  static final VirtualServer PROBE = new VirtualServer("198.51.100.0", "TCP", 20000, "rr", 0, 0);

  private IpvsSupport() {}

  /**
   * @param ipvs null when the kernel has no IPVS
   * @throws IOException saying why ipvs mode cannot run ("can't use the IPVS proxier: " goes before it)
   */
  public static void check(Ipvs ipvs, IpSetTool ipset, String scheduler) throws IOException {
    if (ipvs == null) {
      throw new IOException("Ipvs not supported by the kernel");
    }
    String version;
    try {
      version = ipset.version();
    } catch (IOException e) {
      throw new IOException("error getting ipset version, error: " + e.getMessage(), e);
    }
    if (!IpSetTool.atLeastMinimum(version)) {
      throw new IOException("ipset version: " + version + " is less than min required version: "
          + IpSetTool.MIN_VERSION);
    }
    String sched = scheduler == null || scheduler.isEmpty() ? "rr" : scheduler;
    List<VirtualServer> existing = ipvs.virtualServers();
    for (VirtualServer vs : existing) {
      if (vs.scheduler().equals(sched)) {
        Log.v(5).info("VS exist, Skipping checks");
        return;
      }
    }
    VirtualServer probe = new VirtualServer(PROBE.address(), PROBE.protocol(), PROBE.port(), sched, 0, 0);
    try {
      ipvs.addVirtualServer(probe);
    } catch (IOException e) {
      Log.error("Could not create dummy VS", e, "scheduler", sched);
      throw e;
    }
    if (ipvs.virtualServers().stream().noneMatch(vs -> vs.key().equals(probe.key()))) {
      Log.info("Dummy VS not created", "scheduler", sched);
      throw new IOException("Ipvs not supported");
    }
    ipvs.deleteVirtualServer(probe);
  }
}
