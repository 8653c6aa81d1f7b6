package dev.kubeproxy.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class HeapCompactionTest {
  @Test
  void theFreeRatiosAreBackAfterTheCollection() {
    HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    String min = vm.getVMOption("MinHeapFreeRatio").getValue();
    String max = vm.getVMOption("MaxHeapFreeRatio").getValue();
    HeapCompaction.collectTightly();
    assertEquals(min, vm.getVMOption("MinHeapFreeRatio").getValue());
    assertEquals(max, vm.getVMOption("MaxHeapFreeRatio").getValue());
  }
}
