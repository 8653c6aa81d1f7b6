package dev.kubeproxy.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/**
 * The process's resident memory and its cgroup's memory limit, the two figures an alert needs to
 * warn before the kernel OOM-kills the agent. {@code process_resident_memory_bytes} has the name
 * of Go's process collector, so dashboards built for upstream's binary read it unchanged;
 * {@code process_memory_limit_bytes} is registered only when the cgroup sets a limit.
 */
final class ProcessMemoryMetrics implements MeterBinder {
  /** cgroup v1 writes "no limit" as the largest page-aligned signed 64-bit value. */
  private static final long V1_UNLIMITED = 1L << 62;

  private final Path proc;
  private final Path cgroupRoot;

  ProcessMemoryMetrics() {
    this(Path.of("/proc/self"), Path.of("/sys/fs/cgroup"));
  }

  /** For tests: a /proc/self and a /sys/fs/cgroup of their own. */
  ProcessMemoryMetrics(Path proc, Path cgroupRoot) {
    this.proc = proc;
    this.cgroupRoot = cgroupRoot;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    if (residentBytes().isPresent()) {
      // A supplier, not (object, function): Micrometer holds the object weakly, and this one is not kept elsewhere.
      Gauge.builder("process.resident.memory", () -> orNaN(residentBytes()))
          .baseUnit("bytes")
          .description("Resident memory size in bytes.")
          .register(registry);
    }
    if (limitBytes().isPresent()) {
      Gauge.builder("process.memory.limit", () -> orNaN(limitBytes()))
          .baseUnit("bytes")
          .description("Memory limit of the process's cgroup in bytes (memory.max, or memory.limit_in_bytes on cgroup v1).")
          .register(registry);
    }
  }

  private static Double orNaN(OptionalLong v) {
    return v.isPresent() ? (double) v.getAsLong() : Double.NaN;
  }

  /** VmRSS of /proc/self/status. */
  OptionalLong residentBytes() {
    for (String line : lines(proc.resolve("status"))) {
      if (line.startsWith("VmRSS:")) {
        String[] f = line.substring(6).trim().split("\\s+");
        return OptionalLong.of(Long.parseLong(f[0]) * 1024); // the kernel writes kB
      }
    }
    return OptionalLong.empty();
  }

  /** The limit of the cgroup this process is in; empty when there is none. */
  OptionalLong limitBytes() {
    for (String line : lines(proc.resolve("cgroup"))) {
      String[] f = line.split(":", 3);
      if (f.length < 3) {
        continue;
      }
      String path = f[2].startsWith("/") ? f[2].substring(1) : f[2];
      if (f[0].equals("0") && f[1].isEmpty()) {
        OptionalLong v2 = read(ownCgroup(cgroupRoot, path).resolve("memory.max"));
        if (v2.isPresent()) {
          return v2;
        }
      } else if (List.of(f[1].split(",")).contains("memory")) {
        OptionalLong v1 = read(ownCgroup(cgroupRoot.resolve("memory"), path).resolve("memory.limit_in_bytes"));
        if (v1.isPresent() && v1.getAsLong() < V1_UNLIMITED) {
          return v1;
        }
      }
    }
    return OptionalLong.empty();
  }

  /**
   * The folder of the process's cgroup under a cgroupfs mount. In a container without a cgroup
   * namespace (cgroup v1 under Docker, containerd or podman) /proc/self/cgroup names the host's
   * path, but the container's mount has that cgroup as its root: the path is absent there.
   */
  private static Path ownCgroup(Path mount, String path) {
    Path full = mount.resolve(path);
    return Files.isDirectory(full) ? full : mount;
  }

  /** A number file of cgroupfs; empty when absent or "max". */
  private static OptionalLong read(Path file) {
    List<String> lines = lines(file);
    if (lines.isEmpty() || !lines.get(0).trim().matches("\\d+")) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(Long.parseLong(lines.get(0).trim()));
  }

  private static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException | RuntimeException e) {
      return List.of(); // not Linux, or not readable here: the meter is left out
    }
  }
}
