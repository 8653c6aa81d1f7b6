package dev.kubeproxy.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

@Unit
class CommandRunnerTest {
  @Test
  void collectsBothStreamsAndTheExitStatus() throws Exception {
    String big = "x".repeat(1 << 20); // more than a pipe holds: the readers must drain while the command runs
    CommandRunner.Result r = new ProcessCommandRunner().run(List.of("sh", "-c", "cat; echo oops >&2; exit 3"), big);
    assertEquals(3, r.exitCode());
    assertEquals(big, r.stdout());
    assertEquals("oops\n", r.stderr());
  }

  @Test
  void aCommandThatHangsIsKilledAtItsTimeLimit() throws Exception {
    CommandRunner runner = new ProcessCommandRunner(List.of(), null, java.time.Duration.ofMillis(300));
    long start = System.nanoTime();
    IOException e = assertThrows(IOException.class, () -> runner.run(List.of("sleep", "30")));
    assertTrue(e.getMessage().contains("sleep 30 did not finish within 0 s and was killed"), e.getMessage());
    assertTrue(System.nanoTime() - start < 20_000_000_000L, "the runner waited for the command");
  }

  @Test
  void handsOverTheOutputLineByLineWithTheExitStatusAndStderr() throws Exception {
    List<String> lines = new ArrayList<>();
    // more lines than a pipe holds before the command exits
    CommandRunner.Result r = new ProcessCommandRunner().runLines(
        List.of("sh", "-c", "i=0; while [ $i -lt 20000 ]; do echo \"-A KUBE-X $i\"; i=$((i+1)); done; echo oops >&2; exit 2"),
        lines::add);
    assertEquals(2, r.exitCode());
    assertEquals("oops\n", r.stderr());
    assertEquals("", r.stdout());
    assertEquals(20000, lines.size());
    assertEquals("-A KUBE-X 0", lines.get(0));
    assertEquals("-A KUBE-X 19999", lines.get(19999));
  }

  @Test
  void whatTheLineConsumerThrowsReachesTheCaller() {
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> new ProcessCommandRunner().runLines(
        List.of("sh", "-c", "echo one; echo two"), line -> {
          throw new IllegalStateException("refused " + line);
        }));
    assertEquals("refused one", e.getMessage());
  }
}
