package dev.kubeproxy.host;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs OS commands (iptables-restore, nft, conntrack, sysctl helpers). Blocking: call it from a
 * worker, never from an event loop. {@link ProcessCommandRunner} is the one that starts processes;
 * tests stand in for it with runners that answer from a script.
 */
public interface CommandRunner {
  /** Long enough for nft or iptables-restore to load tens of thousands of Services. */
  Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);

  /** The exit status and output of a finished command. */
  record Result(int exitCode, String stdout, String stderr) {
    public boolean ok() {
      return exitCode == 0;
    }
  }

  /** A runner whose commands run inside the named network namespace ("ip netns exec NS ..."). */
  static CommandRunner inNetns(String namespace) {
    return new ProcessCommandRunner(List.of("ip", "netns", "exec", namespace), namespace, DEFAULT_TIMEOUT);
  }

  /** Runs argv, feeding stdin (may be null) and collecting both output streams. */
  Result run(List<String> argv, CharSequence stdin) throws IOException;

  default Result run(List<String> argv) throws IOException {
    return run(argv, null);
  }

  /**
   * Runs argv with no input and hands its stdout to {@code lines} one line at a time (without the
   * line break); returns when the command has exited and every line has been handed over, with an
   * empty stdout in the result. An iptables-save of a large cluster is tens of megabytes, so the
   * process runner streams it; this default, for runners whose output is already whole, splits it.
   */
  default Result runLines(List<String> argv, Consumer<String> lines) throws IOException {
    Result result = run(argv, null);
    result.stdout().lines().forEach(lines);
    return new Result(result.exitCode(), "", result.stderr());
  }

  /** The network namespace the commands run in, or null for the process's own. */
  default String netns() {
    return null;
  }
}
