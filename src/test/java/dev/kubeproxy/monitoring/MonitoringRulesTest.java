package dev.kubeproxy.monitoring;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.e2e.Requirements;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.testutil.tier.Unit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `promtool check rules` on docker/monitoring/kube-proxy-alerts.yaml and `promtool test rules`
 * with the synthetic series of src/test/resources/monitoring/kube-proxy-alerts-test.yaml: each
 * alert fires where it must, with its labels and texts, and stays quiet where it must not.
 */
@Unit
class MonitoringRulesTest {
  private static final Path ALERTS = Path.of("docker", "monitoring", "kube-proxy-alerts.yaml");
  private static final Path ALERT_TESTS = Path.of("src", "test", "resources", "monitoring", "kube-proxy-alerts-test.yaml");

  @TempDir
  Path dir;

  @Test
  void rulesAreValidAndBehaveOnSyntheticSeries() throws Exception {
    assumeTrue(Requirements.onPath("promtool"), "promtool is not installed (Debian package prometheus)");
    Files.copy(ALERTS, dir.resolve("kube-proxy-alerts.yaml"), StandardCopyOption.REPLACE_EXISTING);
    Files.copy(ALERT_TESTS, dir.resolve("kube-proxy-alerts-test.yaml"), StandardCopyOption.REPLACE_EXISTING);
    CommandRunner run = new ProcessCommandRunner();
    CommandRunner.Result check = run.run(List.of("promtool", "check", "rules", dir.resolve("kube-proxy-alerts.yaml").toString()));
    assertTrue(check.ok() && check.stdout().contains("SUCCESS"), check.toString());
    CommandRunner.Result test = run.run(List.of("sh", "-c", "cd '" + dir + "' && promtool test rules kube-proxy-alerts-test.yaml"));
    assertTrue(test.ok() && test.stdout().contains("SUCCESS"), test.toString());
  }

  @Test
  void everyAlertIsExercised() throws Exception {
    String rules = Files.readString(ALERTS);
    String tests = Files.readString(ALERT_TESTS);
    for (String line : rules.split("\n")) {
      String t = line.trim();
      if (t.startsWith("- alert: ")) {
        String name = t.substring("- alert: ".length());
        assertTrue(tests.contains("alertname: " + name), name + " has no promtool test");
      }
    }
  }
}
