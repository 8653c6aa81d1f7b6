package dev.kubeproxy.host;

import com.sun.management.HotSpotDiagnosticMXBean;
import dev.kubeproxy.logging.Log;
import java.lang.management.ManagementFactory;

/**
 * A full collection that leaves the old generation at the live data + 5 % instead of the
 * launcher's + 30 % ({@code -XX:MaxHeapFreeRatio}), then sets the free ratios the agent keeps from
 * then on, so the heap grows again as before when the agent needs it. For the one collection after
 * the initial load: the serial collector keeps what it committed until a later full collection,
 * and the young generation is resized to a share of the old one at this collection, so the
 * old-generation headroom cut here is resident memory the agent would otherwise keep, and a third
 * as much again of young. Both ratios are manageable
 * flags; where the JVM refuses to change them (not HotSpot), the collection is a plain one.
 *
 * <p>The ratios from then on are those of {@value #STEADY_RATIOS_PROPERTY} ("min,max" percent,
 * set by the launcher, which starts the JVM with wider ones for the initial load: the heap then
 * grows in a few large steps instead of a full collection at every quarter), or else those the
 * JVM had.
 */
public final class HeapCompaction {
  /**
   * The old generation's free share right after this collection, in percent. Small: the serial
   * collector grows the old generation within a young collection when promotions need room, so a
   * tight fit costs no extra full collection, and every percent of a large heap is resident.
   */
  static final int TIGHT_MAX_FREE_PERCENT = 5;
  /** The system property naming the free ratios after the initial load ("MinHeapFreeRatio,MaxHeapFreeRatio"). */
  static final String STEADY_RATIOS_PROPERTY = "kube-proxy.steady-heap-free-ratios";

  private HeapCompaction() {}

  /** Runs the tight full collection; blocking (a worker, never an event loop). */
  public static void collectTightly() {
    HotSpotDiagnosticMXBean vm;
    String min;
    String max;
    try {
      vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      min = vm.getVMOption("MinHeapFreeRatio").getValue();
      max = vm.getVMOption("MaxHeapFreeRatio").getValue();
    } catch (RuntimeException e) {
      Runtime.getRuntime().gc();
      NativeHeapTrim.trim();
      return;
    }
    String tight = String.valueOf(Math.min(TIGHT_MAX_FREE_PERCENT, Integer.parseInt(max)));
    try {
      // Min first: the JVM keeps MinHeapFreeRatio <= MaxHeapFreeRatio at every step
      vm.setVMOption("MinHeapFreeRatio", "0");
      vm.setVMOption("MaxHeapFreeRatio", tight);
    } catch (RuntimeException e) {
      // not writeable here: the collection below is a plain one
    }
    String[] steady = steadyRatios();
    try {
      Runtime.getRuntime().gc();
    } finally {
      restore(vm, steady == null ? max : steady[1], steady == null ? min : steady[0]);
    }
    NativeHeapTrim.trim(); // the load's native buffers, freed by now
  }

  /** The property's "min,max", or null when it is unset or not two percentages with min <= max. */
  static String[] steadyRatios() {
    String value = System.getProperty(STEADY_RATIOS_PROPERTY);
    if (value == null) {
      return null;
    }
    String[] parts = value.split(",");
    try {
      if (parts.length == 2) {
        int min = Integer.parseInt(parts[0].trim());
        int max = Integer.parseInt(parts[1].trim());
        if (0 <= min && min <= max && max <= 100) {
          return new String[] {String.valueOf(min), String.valueOf(max)};
        }
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    Log.warn("Ignoring -D" + STEADY_RATIOS_PROPERTY + ": not \"min,max\" percent with min <= max",
        "value", value);
    return null;
  }

  private static void restore(HotSpotDiagnosticMXBean vm, String max, String min) {
    try {
      vm.setVMOption("MaxHeapFreeRatio", max);
      vm.setVMOption("MinHeapFreeRatio", min);
    } catch (RuntimeException e) {
      // what could not be set was not changed
    }
  }
}
