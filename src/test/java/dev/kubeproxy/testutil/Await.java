package dev.kubeproxy.testutil;

import io.vertx.core.Future;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Blocking waits for tests on the JUnit thread (never on an event loop): by polling, never by a fixed sleep. */
public final class Await {
  private Await() {}

  public static <T> T result(Future<T> future) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("future did not succeed: " + e, e);
    }
  }

  /** The future's result, or its failure thrown as it is (for assertThrows on a failed future). */
  public static <T> T resultOrCause(Future<T> future) throws Exception {
    try {
      return future.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  /** Waits until the future completes, succeeded or failed (the caller reads which). */
  public static void completion(Future<?> future) {
    until("the future to complete", 20_000, future::isComplete);
  }

  /** Waits until the condition holds (checked every 20 ms), failing after the timeout. */
  public static void until(String what, long timeoutMillis, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for: " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for: " + what);
      }
    }
  }

  /**
   * Polls {@code probe} until {@code done} accepts its value or {@code timeout} passes, backing off
   * up to half a second; returns the accepted value, or throws an AssertionError naming what was
   * awaited and the last value.
   */
  public static <T> T until(String what, Duration timeout, Supplier<T> probe, Predicate<T> done) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long pause = 50;
    while (true) {
      T last = probe.get();
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

  /** Whether the condition comes to hold within the timeout. */
  public static boolean within(Duration timeout, Supplier<Boolean> condition) {
    try {
      until("condition", timeout, condition, Boolean::booleanValue);
      return true;
    } catch (AssertionError e) {
      return false;
    }
  }
}
