package dev.kubeproxy.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.management.HotSpotDiagnosticMXBean;
import dev.kubeproxy.testutil.tier.Unit;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

@Unit
class HeapCompactionTest {
  private final HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
  private final String min = vm.getVMOption("MinHeapFreeRatio").getValue();
  private final String max = vm.getVMOption("MaxHeapFreeRatio").getValue();

  @AfterEach
  void putBack() {
    System.clearProperty(HeapCompaction.STEADY_RATIOS_PROPERTY);
    vm.setVMOption("MaxHeapFreeRatio", "100");
    vm.setVMOption("MinHeapFreeRatio", min);
    vm.setVMOption("MaxHeapFreeRatio", max);
  }

  @Test
  void theFreeRatiosAreBackAfterTheCollection() {
    HeapCompaction.collectTightly();
    assertEquals(min, vm.getVMOption("MinHeapFreeRatio").getValue());
    assertEquals(max, vm.getVMOption("MaxHeapFreeRatio").getValue());
  }

  @Test
  void theLaunchersSteadyRatiosFollowTheCollection() {
    System.setProperty(HeapCompaction.STEADY_RATIOS_PROPERTY, "21,33");
    HeapCompaction.collectTightly();
    assertEquals("21", vm.getVMOption("MinHeapFreeRatio").getValue());
    assertEquals("33", vm.getVMOption("MaxHeapFreeRatio").getValue());
  }

  @Test
  void steadyRatiosThatAreNotTwoOrderedPercentagesAreIgnored() {
    for (String bad : new String[] {"30,25", "25", "25,30,35", "a,b", "-1,30", "25,101"}) {
      System.setProperty(HeapCompaction.STEADY_RATIOS_PROPERTY, bad);
      HeapCompaction.collectTightly();
      assertEquals(min, vm.getVMOption("MinHeapFreeRatio").getValue(), bad);
      assertEquals(max, vm.getVMOption("MaxHeapFreeRatio").getValue(), bad);
    }
  }
}
