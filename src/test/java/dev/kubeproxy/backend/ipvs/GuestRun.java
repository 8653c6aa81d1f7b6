package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.guest.Guest;
import dev.kubeproxy.host.CommandRunner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Runs a main class of the test classpath in a fresh guest and splits its "== section" output. */
final class GuestRun {
  /** A guest running a JVM that programs and probes a whole node takes minutes under emulation (TCG). */
  static final Duration LIMIT = Duration.ofMinutes(16);

  private GuestRun() {}

  static CommandRunner.Result java(Class<?> main, String... args) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> argv = new java.util.ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
        main.getName()));
    argv.addAll(List.of(args));
    return Guest.run(argv, LIMIT);
  }

  static Map<String, String> sections(String stdout) {
    Map<String, String> out = new LinkedHashMap<>();
    String name = null;
    StringBuilder body = new StringBuilder();
    for (String line : stdout.split("\n", -1)) {
      if (line.startsWith("== ")) {
        if (name != null) {
          out.put(name, body.toString());
        }
        name = line.substring(3);
        body.setLength(0);
      } else if (name != null) {
        body.append(line.stripTrailing()).append('\n');
      }
    }
    if (name != null) {
      out.put(name, body.toString().replaceAll("\n$", ""));
    }
    return out;
  }

  /** Inside the guest: a command's stdout and stderr together, whatever its exit status. */
  static String output(CommandRunner runner, String... argv) throws Exception {
    CommandRunner.Result r = runner.run(new java.util.ArrayList<>(List.of(argv)));
    return r.stdout() + r.stderr();
  }

  /** Inside the guest: a shell script that must succeed. */
  static void sh(CommandRunner runner, String script) throws Exception {
    CommandRunner.Result r = runner.run(List.of("sh", "-c", script));
    if (!r.ok()) {
      throw new IllegalStateException(r.stderr());
    }
  }
}
