package dev.kubeproxy.testutil;

import dev.kubeproxy.host.CommandRunner;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Runs commands through another runner (or answers each with success and no output) and keeps
 * what tests and benchmarks look at afterwards: the commands run, the input of the last
 * iptables-restore (the proxier keeps no copy of its ruleset), and the time spent in restores and
 * in the other commands since the last {@link #resetTimes}.
 */
public final class RecordingRunner implements CommandRunner {
  /** Every command run, in order. */
  public final List<List<String>> commands = new CopyOnWriteArrayList<>();
  private final CommandRunner delegate;
  private volatile String lastRestoreInput;
  private final AtomicLong restoreNanos = new AtomicLong();
  private final AtomicLong otherNanos = new AtomicLong();

  public RecordingRunner(CommandRunner delegate) {
    this.delegate = delegate;
  }

  /** Records commands without running them: each succeeds with no output. */
  public RecordingRunner() {
    this((argv, stdin) -> new Result(0, "", ""));
  }

  @Override
  public String netns() {
    return delegate.netns();
  }

  @Override
  public Result run(List<String> argv, CharSequence stdin) throws IOException {
    commands.add(List.copyOf(argv));
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
    commands.add(List.copyOf(argv));
    long start = System.nanoTime();
    try {
      return delegate.runLines(argv, lines);
    } finally {
      otherNanos.addAndGet(System.nanoTime() - start);
    }
  }

  /** The input of the last iptables-restore run (the ruleset, after a sync), or null. */
  public String lastRestoreInput() {
    return lastRestoreInput;
  }

  public long restoreNanos() {
    return restoreNanos.get();
  }

  public long otherCommandsNanos() {
    return otherNanos.get();
  }

  public void resetTimes() {
    restoreNanos.set(0);
    otherNanos.set(0);
  }
}
