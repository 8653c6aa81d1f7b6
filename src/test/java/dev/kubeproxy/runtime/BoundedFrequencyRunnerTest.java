package dev.kubeproxy.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

@Unit
class BoundedFrequencyRunnerTest {
  /** A manual clock: timers fire only when the test advances time. */
  static final class FakeTimer implements RunnerTimer {
    record Task(long id, long due, Runnable run) {}

    long now = 1_000_000;
    long nextId;
    final List<Task> tasks = new ArrayList<>();

    @Override
    public long nowMillis() {
      return now;
    }

    @Override
    public long schedule(long delayMillis, Runnable task) {
      long id = nextId++;
      tasks.add(new Task(id, now + delayMillis, task));
      return id;
    }

    @Override
    public void cancel(long id) {
      tasks.removeIf(t -> t.id() == id);
    }

    /** Moves time forward, firing due timers in order. */
    void advance(long millis) {
      long end = now + millis;
      while (true) {
        Task next = tasks.stream().filter(t -> t.due() <= end).min(Comparator.comparingLong(Task::due)).orElse(null);
        if (next == null) {
          break;
        }
        tasks.remove(next);
        now = Math.max(now, next.due());
        next.run().run();
      }
      now = end;
    }

    long nextDueIn() {
      return tasks.stream().mapToLong(Task::due).min().orElse(-1) - now;
    }
  }

  private final FakeTimer timer = new FakeTimer();
  private final List<Long> runTimes = new ArrayList<>();
  private Promise<Void> inFlight;
  private boolean holdRuns;

  private BoundedFrequencyRunner runner(long minMs, long maxMs, int burst) {
    return new BoundedFrequencyRunner("test", () -> {
      runTimes.add(timer.now);
      if (holdRuns) {
        inFlight = Promise.promise();
        return inFlight.future();
      }
      return Future.succeededFuture();
    }, Duration.ofMillis(minMs), Duration.ofMillis(maxMs), burst, timer);
  }

  @Test
  void runsPeriodicallyAtMaxInterval() {
    BoundedFrequencyRunner r = runner(1000, 60_000, 2);
    r.start();
    timer.advance(59_999);
    assertEquals(0, runTimes.size());
    timer.advance(1);
    assertEquals(1, runTimes.size());
    timer.advance(60_000);
    assertEquals(2, runTimes.size());
  }

  /** Asks for a run and lets the context take its next task (where the run starts). */
  private void request(BoundedFrequencyRunner r) {
    r.run();
    timer.advance(0);
  }

  @Test
  void aRequestRunsFromATaskOfItsOwnAndTakesInEveryRequestBeforeIt() {
    BoundedFrequencyRunner r = runner(1000, 60_000, 2);
    r.start();
    r.run();
    assertEquals(0, runTimes.size(), "no run inside the caller");
    r.run();
    r.run();
    timer.advance(0);
    assertEquals(1, runTimes.size(), "one run for the requests queued before it");
  }

  @Test
  void nothingBeforeStart() {
    BoundedFrequencyRunner r = runner(1000, 60_000, 2);
    r.run();
    assertEquals(0, runTimes.size());
  }

  @Test
  void burstThenRateLimitedAndDeferredNotDropped() {
    BoundedFrequencyRunner r = runner(1000, 60_000, 2);
    r.start();
    request(r);
    request(r);
    assertEquals(2, runTimes.size(), "burst of 2 runs at once");
    request(r);
    request(r); // coalesces with the previous request
    assertEquals(2, runTimes.size());
    assertEquals(1000, timer.nextDueIn(), "deferred until minInterval after the last run");
    timer.advance(999);
    assertEquals(2, runTimes.size());
    timer.advance(1);
    assertEquals(3, runTimes.size(), "the deferred request ran once");
    timer.advance(5000);
    assertEquals(3, runTimes.size());
    assertEquals(60_000 - 5000, timer.nextDueIn(), "after a run the periodic timer is re-armed");
  }

  @Test
  void tokensRefillOverTime() {
    BoundedFrequencyRunner r = runner(1000, 60_000, 2);
    r.start();
    request(r);
    request(r);
    timer.advance(2000);
    request(r);
    request(r);
    assertEquals(4, runTimes.size());
  }

  @Test
  void zeroMinIntervalMeansNoLimit() {
    BoundedFrequencyRunner r = runner(0, 60_000, 2);
    r.start();
    for (int i = 0; i < 10; i++) {
      request(r);
    }
    assertEquals(10, runTimes.size());
  }

  @Test
  void runsNeverOverlapAndARequestDuringARunIsKept() {
    holdRuns = true;
    BoundedFrequencyRunner r = runner(0, 60_000, 2);
    r.start();
    request(r);
    assertTrue(r.running());
    request(r);
    request(r);
    timer.advance(70_000); // even the periodic timer does not start a second run
    assertEquals(1, runTimes.size());
    inFlight.complete();
    timer.advance(0);
    assertEquals(2, runTimes.size(), "one coalesced run after the first finished");
    inFlight.complete();
    assertFalse(r.running());
    assertEquals(2, runTimes.size());
  }

  @Test
  void aThrowingFunctionDoesNotStopTheRunner() {
    int[] calls = new int[1];
    BoundedFrequencyRunner r = new BoundedFrequencyRunner("t", () -> {
      calls[0]++;
      throw new IllegalStateException("boom");
    }, Duration.ZERO, Duration.ofSeconds(10), 2, timer);
    r.start();
    request(r);
    assertFalse(r.running());
    request(r);
    assertEquals(2, calls[0]);
  }

  @Test
  void retryAfterShortensTheTimer() {
    BoundedFrequencyRunner r = runner(1000, 3_600_000, 2);
    r.start();
    r.retryAfter(Duration.ofSeconds(30));
    assertEquals(30_000, timer.nextDueIn());
    r.retryAfter(Duration.ofSeconds(40)); // a later retry does not postpone the earlier one
    assertEquals(30_000, timer.nextDueIn());
    timer.advance(30_000);
    assertEquals(1, runTimes.size());
    assertEquals(3_600_000, timer.nextDueIn());
  }

  @Test
  void retryRequestedDuringARunAppliesAfterIt() {
    holdRuns = true;
    BoundedFrequencyRunner r = runner(1000, 3_600_000, 2);
    r.start();
    request(r);
    r.retryAfter(Duration.ofSeconds(30)); // as a failing sync does
    inFlight.complete();
    assertEquals(30_000, timer.nextDueIn());
    timer.advance(30_000);
    assertEquals(2, runTimes.size());
    // that run fails again and asks again: a fresh retry is scheduled
    r.retryAfter(Duration.ofSeconds(30));
    inFlight.complete();
    assertEquals(30_000, timer.nextDueIn());
  }

  @Test
  void retryDoesNotLengthenAShorterTimer() {
    BoundedFrequencyRunner r = runner(1000, 10_000, 2);
    r.start();
    r.retryAfter(Duration.ofSeconds(30));
    assertEquals(10_000, timer.nextDueIn());
  }

  @Test
  void stopCancelsTimers() {
    BoundedFrequencyRunner r = runner(1000, 10_000, 2);
    r.start();
    r.stop();
    timer.advance(100_000);
    assertEquals(0, runTimes.size());
  }

  @Test
  void invalidIntervals() {
    assertThrows(IllegalArgumentException.class, () -> runner(1000, 0, 2));
    assertThrows(IllegalArgumentException.class, () -> runner(20_000, 10_000, 2));
  }
}
