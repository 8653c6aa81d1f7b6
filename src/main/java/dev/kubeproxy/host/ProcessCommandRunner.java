package dev.kubeproxy.host;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The {@link CommandRunner} that starts OS processes. Every command has a time limit: a tool that
 * hangs (a stuck lock, a kernel that never answers) is killed and reported, instead of holding the
 * sync that called it for ever.
 */
public final class ProcessCommandRunner implements CommandRunner {
  private static final int STDIN_CHUNK = 64 * 1024;

  private final List<String> prefix;
  private final String netns;
  private final Duration timeout;

  /** Runs commands in the process's own network namespace. */
  public ProcessCommandRunner() {
    this(List.of(), null, DEFAULT_TIMEOUT);
  }

  /** Runs each command after {@code prefix} (such as "ip netns exec NS"), killing it past {@code timeout}. */
  public ProcessCommandRunner(List<String> prefix, String netns, Duration timeout) {
    this.prefix = List.copyOf(prefix);
    this.netns = netns;
    this.timeout = timeout;
  }

  @Override
  public String netns() {
    return netns;
  }

  @Override
  public Result run(List<String> argv, CharSequence stdin) throws IOException {
    List<String> command = new ArrayList<>(prefix);
    command.addAll(argv);
    Process process = new ProcessBuilder(command).start();
    StreamReader out = StreamReader.start(process.getInputStream(), "stdout of " + command.get(0));
    StreamReader err = StreamReader.start(process.getErrorStream(), "stderr of " + command.get(0));
    // Encoded a chunk at a time: a large restore input is never copied whole into a second array.
    try (Writer in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8)) {
      if (stdin != null) {
        for (int at = 0; at < stdin.length(); at += STDIN_CHUNK) {
          in.append(stdin, at, Math.min(at + STDIN_CHUNK, stdin.length()));
        }
      }
    } catch (IOException e) {
      // The command may exit before reading all its input; its exit status tells what happened.
    }
    try {
      awaitExit(process, command);
      return new Result(process.exitValue(), out.text(), err.text());
    } catch (InterruptedException e) {
      throw interrupted(process, command, e);
    }
  }

  /** Waits for the command within the time limit; kills it past that. */
  private void awaitExit(Process process, List<String> command) throws IOException, InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IOException(String.join(" ", command) + " did not finish within " + timeout.toSeconds()
          + " s and was killed");
    }
  }

  private static IOException interrupted(Process process, List<String> command, InterruptedException e) {
    process.destroyForcibly();
    Thread.currentThread().interrupt();
    return new IOException("interrupted while running " + String.join(" ", command), e);
  }

  /** Streams stdout to {@code lines} on a reader thread as it comes: the output is never held whole. */
  @Override
  public Result runLines(List<String> argv, Consumer<String> lines) throws IOException {
    List<String> command = new ArrayList<>(prefix);
    command.addAll(argv);
    Process process = new ProcessBuilder(command).start();
    process.getOutputStream().close();
    LineReader out = LineReader.start(process.getInputStream(), lines, "stdout of " + command.get(0));
    StreamReader err = StreamReader.start(process.getErrorStream(), "stderr of " + command.get(0));
    try {
      awaitExit(process, command);
      out.finish();
      return new Result(process.exitValue(), "", err.text());
    } catch (InterruptedException e) {
      throw interrupted(process, command, e);
    }
  }

  /** Reads one output stream line by line on a thread of its own and hands each line over. */
  private static final class LineReader {
    private final Thread thread;
    private volatile RuntimeException failure;

    private LineReader(InputStream stream, Consumer<String> lines, String name) {
      thread = new Thread(() -> {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8),
            STDIN_CHUNK)) {
          for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            lines.accept(line);
          }
        } catch (IOException e) {
          // the process was killed, or closed its end early: what was read is all there is
        } catch (RuntimeException e) {
          failure = e;
        }
      }, name);
      thread.setDaemon(true);
    }

    static LineReader start(InputStream stream, Consumer<String> lines, String name) {
      LineReader r = new LineReader(stream, lines, name);
      r.thread.start();
      return r;
    }

    /** Waits for the last line to be handed over (the process has exited); rethrows what the consumer threw. */
    void finish() throws InterruptedException {
      thread.join(TimeUnit.SECONDS.toMillis(10));
      if (failure != null) {
        throw failure;
      }
    }
  }

  /** Drains one output stream of a command on a thread of its own, so that the command never blocks on a full pipe. */
  private static final class StreamReader {
    private final Thread thread;
    private volatile String text = "";

    private StreamReader(InputStream stream, String name) {
      thread = new Thread(() -> {
        try (stream) {
          text = new String(stream.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
          // the process was killed, or closed its end early: what was read is all there is
        }
      }, name);
      thread.setDaemon(true);
    }

    static StreamReader start(InputStream stream, String name) {
      StreamReader r = new StreamReader(stream, name);
      r.thread.start();
      return r;
    }

    /** The whole output; the process has exited, so the stream ends (a child that kept it open is not waited for long). */
    String text() throws InterruptedException {
      thread.join(TimeUnit.SECONDS.toMillis(10));
      return text;
    }
  }
}
