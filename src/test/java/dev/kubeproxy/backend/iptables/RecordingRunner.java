package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.host.CommandRunner;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Runs commands through another runner and keeps what tests and the benchmark look at afterwards:
 * the input of the last iptables-restore (the proxier keeps no copy of its ruleset), and the time
 * spent in restores and in the other commands since the last {@link #resetTimes}.
 */
final class RecordingRunner extends CommandRunner {
  private final CommandRunner delegate;
  private volatile String lastRestoreInput;
  private final AtomicLong restoreNanos = new AtomicLong();
  private final AtomicLong otherNanos = new AtomicLong();

  RecordingRunner(CommandRunner delegate) {
    this.delegate = delegate;
  }

  @Override
  public String netns() {
    return delegate.netns();
  }

  @Override
  public Result run(List<String> argv, CharSequence stdin) throws IOException {
    boolean restore = !argv.isEmpty() && argv.get(0).endsWith("-restore");
    if (restore) {
      lastRestoreInput = stdin == null ? null : stdin.toString();
    }
    long start = System.nanoTime();
    try {
      return delegate.run(argv, stdin);
    } finally {
      long took = System.nanoTime() - start;
      (restore ? restoreNanos : otherNanos).addAndGet(took);
    }
  }

  @Override
  public Result runLines(List<String> argv, Consumer<String> lines) throws IOException {
    long start = System.nanoTime();
    try {
      return delegate.runLines(argv, lines);
    } finally {
      otherNanos.addAndGet(System.nanoTime() - start);
    }
  }

  /** The input of the last iptables-restore run (the ruleset, after a sync), or null. */
  String lastRestoreInput() {
    return lastRestoreInput;
  }

  long restoreNanos() {
    return restoreNanos.get();
  }

  long otherCommandsNanos() {
    return otherNanos.get();
  }

  void resetTimes() {
    restoreNanos.set(0);
    otherNanos.set(0);
  }
}
