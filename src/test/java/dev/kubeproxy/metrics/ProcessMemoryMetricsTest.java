package dev.kubeproxy.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Unit
class ProcessMemoryMetricsTest {
  @TempDir
  Path dir;

  private ProcessMemoryMetrics metrics(String cgroupLine) throws Exception {
    Path proc = Files.createDirectories(dir.resolve("proc"));
    Files.writeString(proc.resolve("status"), "Name:\tjava\nVmHWM:\t  300000 kB\nVmRSS:\t  123456 kB\nThreads:\t20\n");
    Files.writeString(proc.resolve("cgroup"), cgroupLine + "\n");
    return new ProcessMemoryMetrics(proc, dir.resolve("cgroup"));
  }

  private void write(String relative, String content) throws Exception {
    Path f = dir.resolve("cgroup").resolve(relative);
    Files.createDirectories(f.getParent());
    Files.writeString(f, content);
  }

  @Test
  void residentMemoryFromStatus() throws Exception {
    assertEquals(OptionalLong.of(123456L * 1024), metrics("0::/").residentBytes());
  }

  @Test
  void cgroupV2LimitAndNoLimit() throws Exception {
    write("kubepods/pod1/ctr/memory.max", "268435456\n");
    assertEquals(OptionalLong.of(268435456), metrics("0::/kubepods/pod1/ctr").limitBytes());
    write("memory.max", "max\n");
    assertEquals(OptionalLong.empty(), metrics("0::/").limitBytes());
  }

  @Test
  void cgroupV1LimitAndTheUnlimitedValue() throws Exception {
    write("memory/docker/abc/memory.limit_in_bytes", "134217728\n");
    assertEquals(OptionalLong.of(134217728), metrics("4:memory:/docker/abc").limitBytes());
    write("memory/memory.limit_in_bytes", "9223372036854771712\n");
    assertEquals(OptionalLong.empty(), metrics("4:memory:/").limitBytes());
  }

  @Test
  void cgroupV1InAContainerWhoseMountIsRootedAtItsOwnCgroup() throws Exception {
    // /proc/self/cgroup names the host's path; the container's /sys/fs/cgroup/memory is that cgroup
    write("memory/memory.limit_in_bytes", "536870912\n");
    assertEquals(OptionalLong.of(536870912), metrics("4:memory:/libpod_parent/libpod-abc").limitBytes());
  }

  @Test
  void prometheusNamesAndTheLimitOnlyWhenSet() throws Exception {
    write("memory.max", "max\n");
    PrometheusMeterRegistry unlimited = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    metrics("0::/").bindTo(unlimited);
    assertTrue(unlimited.scrape().contains("process_resident_memory_bytes 1.26418944E8"), unlimited.scrape());
    assertFalse(unlimited.scrape().contains("process_memory_limit_bytes"));

    write("memory.max", "268435456\n");
    PrometheusMeterRegistry limited = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    metrics("0::/").bindTo(limited);
    assertTrue(limited.scrape().contains("process_memory_limit_bytes 2.68435456E8"), limited.scrape());
  }
}
