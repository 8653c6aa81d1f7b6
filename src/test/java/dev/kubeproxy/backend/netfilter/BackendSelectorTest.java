package dev.kubeproxy.backend.netfilter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/** On a node without rules: an xtables-lock timeout is waited out, not taken for a legacy backend that does not work. */
@Unit
class BackendSelectorTest {
  private static final CommandRunner.Result LOCKED = new CommandRunner.Result(BackendSelector.RESOURCE_PROBLEM, "",
      "Another app is currently holding the xtables lock. Stopped waiting after 5s.\n");
  private static final CommandRunner.Result LISTED = new CommandRunner.Result(0, "-P INPUT ACCEPT\n", "");
  private static final CommandRunner.Result NO_TABLE = new CommandRunner.Result(3, "",
      "iptables v1.8.7 (legacy): can't initialize iptables table `filter': Table does not exist\n");

  /** Empty saves from every backend; the legacy check answers from the queue. */
  private static final class EmptyNode implements CommandRunner {
    final Deque<Result> legacyChecks;
    final List<List<String>> checks = new ArrayList<>();

    EmptyNode(Result... legacyChecks) {
      this.legacyChecks = new ArrayDeque<>(List.of(legacyChecks));
    }

    @Override
    public Result run(List<String> argv, CharSequence stdin) throws IOException {
      if (argv.get(0).endsWith("-save")) {
        return new Result(0, "", "");
      }
      checks.add(argv);
      return legacyChecks.isEmpty() ? LOCKED : legacyChecks.poll();
    }
  }

  @Test
  void aLockTimeoutIsRetriedUntilTheCheckAnswers() {
    EmptyNode node = new EmptyNode(LOCKED, LOCKED, LISTED);
    assertEquals(IptablesBackend.LEGACY, BackendSelector.detect(node));
    assertEquals(3, node.checks.size());
    assertEquals(List.of("iptables-legacy", "-w", "5", "-S", "-t", "filter"), node.checks.get(0));
  }

  @Test
  void aLockTimeoutThenAFailureMeansLegacyDoesNotWork() {
    EmptyNode node = new EmptyNode(LOCKED, NO_TABLE);
    assertEquals(IptablesBackend.NFT, BackendSelector.detect(node));
    assertEquals(2, node.checks.size());
  }

  @Test
  void aLockHeldThroughEveryAttemptMeansAnotherProgramUsesLegacy() {
    EmptyNode node = new EmptyNode();
    assertEquals(IptablesBackend.LEGACY, BackendSelector.detect(node));
    assertEquals(BackendSelector.LOCKED_ATTEMPTS, node.checks.size());
  }

  @Test
  void aBackendThatDoesNotWorkIsNotRetried() {
    EmptyNode node = new EmptyNode(NO_TABLE);
    assertEquals(IptablesBackend.NFT, BackendSelector.detect(node));
    assertEquals(1, node.checks.size());
  }
}
