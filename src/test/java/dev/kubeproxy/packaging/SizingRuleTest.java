package dev.kubeproxy.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The sizing rule is one rule: the scale benchmark runs each shape under {@link SizingRule#CURRENT},
 * and the DaemonSet's comment and the README state the same numbers, with the DaemonSet's limit as
 * its floor.
 */
@Unit
class SizingRuleTest {
  @Test
  void theManifestAndTheReadmeStateTheBenchmarksRule() throws Exception {
    String manifest = Files.readString(Path.of("docker/kube-proxy.yaml"));
    assertEquals(SizingRule.CURRENT, SizingRule.statedIn(manifest), "docker/kube-proxy.yaml's sizing comment");
    assertEquals(SizingRule.CURRENT, SizingRule.statedIn(Files.readString(Path.of("README.md"))), "README.md");
    assertTrue(manifest.contains("memory: " + SizingRule.CURRENT.floorMiB() + "Mi"),
        "the DaemonSet's limit is the rule's floor");
  }

  @Test
  void limitGrowsWithServicesAndEndpointsAboveTheFloor() {
    SizingRule rule = new SizingRule(50, 85, 95, 512);
    assertEquals(512, rule.limitMiB(1_000, 10));
    assertEquals(512, rule.limitMiB(44_125, 1)); // 467 by the shares alone
    assertEquals(1_170, rule.limitMiB(20_000, 50));
    assertEquals(512, rule.limitMiB(5_006, 50)); // 331 by the shares alone
    assertEquals(995, rule.limitMiB(100_000, 1));
  }

  @Test
  void aStatementSplitOverCommentLinesIsRead() {
    SizingRule stated = SizingRule.statedIn("# a limit of\n          # 50Mi + 85Mi per 10,000 Services + 95Mi per"
        + "\n          # 100,000 endpoints, and never below 512Mi.\n");
    assertNotNull(stated);
    assertEquals(SizingRule.CURRENT, stated);
  }
}
