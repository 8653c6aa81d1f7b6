package dev.kubeproxy.platform;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Runs OS commands (iptables-restore, nft, conntrack, sysctl helpers). Blocking: call it from a
 * worker, never from an event loop. {@link #inNetns} prefixes "ip netns exec NS" for tests.
 */
public class CommandRunner {
  private final List<String> prefix;
  private final String netns;

  public CommandRunner() {
    this(List.of(), null);
  }

  private CommandRunner(List<String> prefix, String netns) {
    this.prefix = List.copyOf(prefix);
    this.netns = netns;
  }

  /** A runner whose commands run inside the named network namespace. */
  public static CommandRunner inNetns(String namespace) {
    return new CommandRunner(List.of("ip", "netns", "exec", namespace), namespace);
  }

  /** The network namespace the commands run in, or null for the process's own. */
  public String netns() {
    return netns;
  }

  /** The exit status and output of a finished command. */
  public record Result(int exitCode, String stdout, String stderr) {
    public boolean ok() {
      return exitCode == 0;
    }
  }

  public Result run(List<String> argv) throws IOException {
    return run(argv, null);
  }

  /** Runs argv, feeding stdin (may be null) and collecting both output streams. */
  public Result run(List<String> argv, String stdin) throws IOException {
    List<String> command = new ArrayList<>(prefix);
    command.addAll(argv);
    Process process = new ProcessBuilder(command).start();
    CompletableFuture<String> out = readAsync(process.getInputStream());
    CompletableFuture<String> err = readAsync(process.getErrorStream());
    try (OutputStream in = process.getOutputStream()) {
      if (stdin != null) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      // The command may exit before reading all its input; its exit status tells what happened.
    }
    try {
      int code = process.waitFor();
      return new Result(code, out.join(), err.join());
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running " + String.join(" ", command), e);
    }
  }

  private static CompletableFuture<String> readAsync(InputStream stream) {
    return CompletableFuture.supplyAsync(() -> {
      try (stream) {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        return "";
      }
    });
  }
}
