package dev.kubeproxy.runtime;

import io.vertx.core.Vertx;

/**
 * The clock and one-shot timers the sync runner uses. Production uses Vert.x timers; tests use a
 * manual clock so that runner semantics are checked without sleeping.
 */
public interface RunnerTimer {
  /** Monotonic now in milliseconds. */
  long nowMillis();

  /** Calls task after delay milliseconds (at least 1) on the runner's context; returns an id. */
  long schedule(long delayMillis, Runnable task);

  void cancel(long id);

  static RunnerTimer of(Vertx vertx) {
    return new RunnerTimer() {
      @Override
      public long nowMillis() {
        return System.nanoTime() / 1_000_000;
      }

      @Override
      public long schedule(long delayMillis, Runnable task) {
        return vertx.setTimer(Math.max(1, delayMillis), id -> task.run());
      }

      @Override
      public void cancel(long id) {
        vertx.cancelTimer(id);
      }
    };
  }
}
