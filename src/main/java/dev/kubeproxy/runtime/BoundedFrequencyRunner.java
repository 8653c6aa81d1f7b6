package dev.kubeproxy.runtime;

import io.vertx.core.Future;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Runs a function often enough and not too often (upstream's
 * pkg/util/async/bounded_frequency_runner.go BoundedFrequencyRunner): at least every maxInterval, at most burstRuns runs back to back and
 * then one per minInterval (a token bucket), requests in between coalesced and deferred, never
 * dropped. Runs never overlap: the function returns a Future and the next run waits for it.
 *
 * <p>Not thread-safe: call it only from the context its timer runs on (the verticle's event loop).
 */
public final class BoundedFrequencyRunner {
  private final String name;
  private final Supplier<Future<?>> fn;
  private final long minInterval;
  private final long maxInterval;
  private final RunnerTimer timer;
  private final TokenBucket limiter;

  private boolean started;
  private boolean running;
  /** A request arrived while running: run again as soon as allowed. */
  private boolean runRequested;
  /** Time of the earliest retry still scheduled, or -1; it outlives runs that happen before it. */
  private long retryAt = -1;
  private long lastRun;
  private long timerId = -1;
  private long timerDue;
  private long runs;

  public BoundedFrequencyRunner(
      String name, Supplier<Future<?>> fn, Duration minInterval, Duration maxInterval, int burstRuns,
      RunnerTimer timer) {
    if (maxInterval.isZero() || maxInterval.isNegative()) {
      throw new IllegalArgumentException(name + ": maxInterval must be positive, got " + maxInterval);
    }
    if (minInterval.compareTo(maxInterval) > 0) {
      throw new IllegalArgumentException(name + ": minInterval " + minInterval + " is above maxInterval " + maxInterval);
    }
    this.name = name;
    this.fn = fn;
    this.minInterval = minInterval.toMillis();
    this.maxInterval = maxInterval.toMillis();
    this.timer = timer;
    this.limiter = new TokenBucket(this.minInterval, burstRuns, timer.nowMillis());
  }

  public String name() {
    return name;
  }

  /** Starts the loop: the first periodic run is due after maxInterval. */
  public void start() {
    if (started) {
      return;
    }
    started = true;
    lastRun = timer.nowMillis();
    arm(maxInterval);
  }

  public void stop() {
    started = false;
    disarm();
  }

  /**
   * Asks for a run; coalesces with any request already waiting. The run starts from a task of its
   * own, never inside the caller: changes queued on the context meanwhile are taken in by the same
   * run, as upstream's Run only signals its loop.
   */
  public void run() {
    if (!started) {
      return;
    }
    if (running) {
      runRequested = true;
      return;
    }
    runSoon();
  }

  /** Makes sure a run happens no later than delay from now (after a failure). */
  public void retryAfter(Duration delay) {
    if (!started) {
      return;
    }
    long at = timer.nowMillis() + delay.toMillis();
    if (retryAt >= 0 && retryAt <= at) {
      return; // an earlier retry is already pending
    }
    retryAt = at;
    if (!running) {
      shortenTimerTo(at); // while running, afterRun applies it
    }
  }

  /** How many times the function has run. */
  public long runs() {
    return runs;
  }

  public boolean running() {
    return running;
  }

  private void tryRun() {
    long now = timer.nowMillis();
    if (limiter.tryAccept(now)) {
      if (retryAt >= 0 && retryAt <= now) {
        retryAt = -1; // this run serves the retry
      }
      running = true;
      runRequested = false;
      disarm();
      runs++;
      Future<?> result;
      try {
        result = fn.get();
      } catch (RuntimeException e) {
        result = Future.failedFuture(e);
      }
      result.onComplete(ar -> afterRun());
      return;
    }
    // No token: defer until one is possible, but never later than the armed timer.
    long nextPossible = Math.max(minInterval - (now - lastRun), limiter.millisUntilToken(now));
    long remaining = timerId >= 0 ? Math.max(0, timerDue - now) : maxInterval;
    arm(Math.max(1, Math.min(nextPossible, remaining)));
  }

  private void afterRun() {
    running = false;
    lastRun = timer.nowMillis();
    if (!started) {
      return;
    }
    arm(maxInterval);
    if (retryAt >= 0) {
      shortenTimerTo(retryAt);
    }
    if (runRequested) {
      runRequested = false;
      runSoon();
    }
  }

  /** Schedules a run attempt as the next task on the context, unless one is due by then anyway. */
  private void runSoon() {
    if (timerId < 0 || timerDue > timer.nowMillis()) {
      arm(0);
    }
  }

  private void shortenTimerTo(long at) {
    long now = timer.nowMillis();
    if (timerId < 0 || at < timerDue) {
      arm(Math.max(1, at - now));
    }
  }

  private void onTimer(long id) {
    if (id != timerId) {
      return;
    }
    timerId = -1;
    if (running) {
      runRequested = true;
      return;
    }
    tryRun();
  }

  private void arm(long delay) {
    disarm();
    timerDue = timer.nowMillis() + delay;
    long[] holder = new long[1];
    holder[0] = timer.schedule(delay, () -> onTimer(holder[0]));
    timerId = holder[0];
  }

  private void disarm() {
    if (timerId >= 0) {
      timer.cancel(timerId);
      timerId = -1;
    }
  }

  /** rate = one token per minInterval, up to burst tokens; minInterval 0 disables limiting. */
  static final class TokenBucket {
    private final long interval;
    private final int burst;
    private double tokens;
    private long last;

    TokenBucket(long intervalMillis, int burst, long now) {
      this.interval = intervalMillis;
      this.burst = Math.max(1, burst);
      this.tokens = this.burst;
      this.last = now;
    }

    boolean tryAccept(long now) {
      if (interval <= 0) {
        return true;
      }
      refill(now);
      if (tokens >= 1) {
        tokens -= 1;
        return true;
      }
      return false;
    }

    long millisUntilToken(long now) {
      if (interval <= 0) {
        return 0;
      }
      refill(now);
      return tokens >= 1 ? 0 : (long) Math.ceil((1 - tokens) * interval);
    }

    private void refill(long now) {
      if (now > last) {
        tokens = Math.min(burst, tokens + (double) (now - last) / interval);
        last = now;
      }
    }
  }
}
