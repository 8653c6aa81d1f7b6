package dev.kubeproxy.e2e;

import java.time.Duration;
import java.util.function.Supplier;

/** Waits for a condition by polling, never by a fixed sleep; fails with the last observation. */
public final class Await {
  private Await() {}

  /**
   * Polls {@code probe} until {@code done} accepts its value or {@code timeout} passes; returns
   * the accepted value, or throws an AssertionError naming what was awaited and the last value.
   */
  public static <T> T until(String what, Duration timeout, Supplier<T> probe, java.util.function.Predicate<T> done) {
    long deadline = System.nanoTime() + timeout.toNanos();
    T last = null;
    long pause = 50;
    while (true) {
      last = probe.get();
      if (done.test(last)) {
        return last;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout.toSeconds() + "s waiting for " + what
            + "; last observed: " + last);
      }
      try {
        Thread.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what);
      }
      pause = Math.min(pause * 2, 500);
    }
  }

  public static boolean within(Duration timeout, Supplier<Boolean> condition) {
    try {
      until("condition", timeout, condition, Boolean::booleanValue);
      return true;
    } catch (AssertionError e) {
      return false;
    }
  }
}
