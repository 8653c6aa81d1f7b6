package dev.kubeproxy.proxy.ipvs;

import dev.kubeproxy.platform.CommandRunner;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Runs a main class of the test classpath in a fresh guest and splits its "== section" output. */
final class GuestRun {
  private GuestRun() {}

  static CommandRunner.Result java(Class<?> main, String... args) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> argv = new java.util.ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
        main.getName()));
    argv.addAll(List.of(args));
    return run(argv);
  }

  /**
   * Guest.run with a longer limit: a guest running a JVM that programs and probes a whole node takes
   * minutes under TCG (CommandRunner's default limit is 5 minutes).
   */
  private static CommandRunner.Result run(List<String> argv) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of(Path.of("src", "test", "guest", "run-in-guest")
        .toAbsolutePath().toString()));
    command.addAll(argv);
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().putIfAbsent("KP_GUEST_TIMEOUT", "900");
    java.io.File out = java.io.File.createTempFile("guest", ".out");
    java.io.File err = java.io.File.createTempFile("guest", ".err");
    Process p = pb.redirectOutput(out).redirectError(err).start();
    if (!p.waitFor(16, java.util.concurrent.TimeUnit.MINUTES)) {
      p.destroyForcibly();
    }
    String stdout = java.nio.file.Files.readString(out.toPath());
    String stderr = java.nio.file.Files.readString(err.toPath());
    out.delete();
    err.delete();
    return new CommandRunner.Result(p.isAlive() ? 124 : p.exitValue(), stdout, stderr);
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
}
