package dev.kubeproxy.e2e;

import dev.kubeproxy.host.CommandRunner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** One network namespace the tests created, and commands run inside it. */
public final class Netns {
  private final String name;
  private final CommandRunner runner;
  private final List<String> envPrefix;

  Netns(String name) {
    this(name, null);
  }

  /**
   * @param xtablesLock a lock file for the iptables tools run in this namespace, or null for the
   *     host's /run/xtables.lock (see {@link Topology#xtablesLock()})
   */
  Netns(String name, Path xtablesLock) {
    this.name = name;
    this.runner = CommandRunner.inNetns(name);
    this.envPrefix = xtablesLock == null ? List.of() : List.of("env", "XTABLES_LOCKFILE=" + xtablesLock);
  }

  public String name() {
    return name;
  }

  /** Runs a command in this namespace and returns its result, whatever the exit status. */
  public CommandRunner.Result exec(String... argv) {
    try {
      List<String> command = new ArrayList<>(envPrefix);
      command.addAll(List.of(argv));
      return runner.run(command);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + String.join(" ", argv) + " in " + name, e);
    }
  }

  /** Runs a command that must succeed; its stdout. */
  public String must(String... argv) {
    CommandRunner.Result r = exec(argv);
    if (!r.ok()) {
      throw new IllegalStateException("in netns " + name + ": `" + String.join(" ", argv) + "` exited "
          + r.exitCode() + ": " + r.stderr().trim() + r.stdout().trim());
    }
    return r.stdout();
  }

  /** Output of a command, or its error text when it failed (for diagnostics and rule checks). */
  public String output(String... argv) {
    CommandRunner.Result r = exec(argv);
    return r.ok() ? r.stdout() : r.stdout() + r.stderr();
  }

  @Override
  public String toString() {
    return name;
  }
}
