package dev.kubeproxy.host;

import java.nio.file.Path;

/**
 * Where the kernel's knobs live. Production uses {@link #host()}; tests point these at a
 * temporary tree so that nothing on the host is ever written.
 *
 * @param procSys     the sysctl root, normally /proc/sys
 * @param hashsize    nf_conntrack's hashsize module parameter (global to the host, not per netns)
 * @param procMounts  the mount table used to check that sysfs is writable
 * @param cpuOnline   the list of online CPUs (e.g. "0-3")
 * @param oomScoreAdj this process's OOM score adjustment file
 */
public record HostPaths(Path procSys, Path hashsize, Path procMounts, Path cpuOnline, Path oomScoreAdj) {
  public static HostPaths host() {
    return new HostPaths(Path.of("/proc/sys"), Path.of("/sys/module/nf_conntrack/parameters/hashsize"),
        Path.of("/proc/mounts"), Path.of("/sys/devices/system/cpu/online"), Path.of("/proc/self/oom_score_adj"));
  }

  /** The same layout under a root directory (tests). */
  public static HostPaths under(Path root) {
    return new HostPaths(root.resolve("proc/sys"), root.resolve("sys/module/nf_conntrack/parameters/hashsize"),
        root.resolve("proc/mounts"), root.resolve("sys/devices/system/cpu/online"), root.resolve("proc/self/oom_score_adj"));
  }

  public HostPaths withProcSys(Path p) {
    return new HostPaths(p, hashsize, procMounts, cpuOnline, oomScoreAdj);
  }

  public HostPaths withOomScoreAdj(Path p) {
    return new HostPaths(procSys, hashsize, procMounts, cpuOnline, p);
  }
}
