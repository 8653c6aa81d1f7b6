package dev.kubeproxy.proxy.iptables;

import dev.kubeproxy.platform.CommandRunner;
import java.io.IOException;
import java.util.List;

/**
 * Runs commands through another runner and keeps what tests and the benchmark look at afterwards:
 * the input of the last iptables-restore (the proxier keeps no copy of its ruleset), and the time
 * spent in restores and in the other commands since the last {@link #resetTimes}.
 */
final class RecordingRunner extends CommandRunner {
  private final CommandRunner delegate;
  private volatile String lastRestoreInput;
  private long restoreNanos;
  private long otherNanos;

  RecordingRunner(CommandRunner delegate) {
    this.delegate = delegate;
  }

  @Override
  public String netns() {
    return delegate.netns();
  }

  @Override
  public synchronized Result run(List<String> argv, String stdin) throws IOException {
    boolean restore = !argv.isEmpty() && argv.get(0).endsWith("-restore");
    if (restore) {
      lastRestoreInput = stdin;
    }
    long start = System.nanoTime();
    try {
      return delegate.run(argv, stdin);
    } finally {
      long took = System.nanoTime() - start;
      if (restore) {
        restoreNanos += took;
      } else {
        otherNanos += took;
      }
    }
  }

  /** The input of the last iptables-restore run (the ruleset, after a sync), or null. */
  String lastRestoreInput() {
    return lastRestoreInput;
  }

  synchronized long restoreNanos() {
    return restoreNanos;
  }

  synchronized long otherCommandsNanos() {
    return otherNanos;
  }

  synchronized void resetTimes() {
    restoreNanos = 0;
    otherNanos = 0;
  }
}
