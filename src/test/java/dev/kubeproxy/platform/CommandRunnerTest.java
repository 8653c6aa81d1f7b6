package dev.kubeproxy.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandRunnerTest {
  @Test
  void collectsBothStreamsAndTheExitStatus() throws Exception {
    String big = "x".repeat(1 << 20); // more than a pipe holds: the readers must drain while the command runs
    CommandRunner.Result r = new CommandRunner().run(List.of("sh", "-c", "cat; echo oops >&2; exit 3"), big);
    assertEquals(3, r.exitCode());
    assertEquals(big, r.stdout());
    assertEquals("oops\n", r.stderr());
  }

  @Test
  void aCommandThatHangsIsKilledAtItsTimeLimit() throws Exception {
    CommandRunner runner = new CommandRunner(List.of(), null, java.time.Duration.ofMillis(300));
    long start = System.nanoTime();
    IOException e = assertThrows(IOException.class, () -> runner.run(List.of("sleep", "30")));
    assertTrue(e.getMessage().contains("sleep 30 did not finish within 0 s and was killed"), e.getMessage());
    assertTrue(System.nanoTime() - start < 20_000_000_000L, "the runner waited for the command");
  }
}
