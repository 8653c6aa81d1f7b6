package dev.kubeproxy.packaging;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Runs a command to its end, with its output (stdout and stderr together) and exit status: the benchmarks' helper. */
final class Commands {
  private Commands() {}

  record Output(String stdout, int exit) {}

  static Output run(List<String> argv, String stdin) throws IOException, InterruptedException {
    Path out = Files.createTempFile("kp-bench-", ".out");
    try {
      ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(out.toFile());
      Process p = pb.start();
      if (stdin != null) {
        try (var in = p.getOutputStream()) {
          in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
      } else {
        p.getOutputStream().close();
      }
      int exit = p.waitFor();
      return new Output(Files.readString(out), exit);
    } finally {
      Files.deleteIfExists(out);
    }
  }

}
