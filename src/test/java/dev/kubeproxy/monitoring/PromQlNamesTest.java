package dev.kubeproxy.monitoring;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.testutil.tier.Unit;
import java.util.Set;
import org.junit.jupiter.api.Test;

@Unit
class PromQlNamesTest {
  @Test
  void namesWithoutFunctionsLabelsRangesOrKeywords() {
    assertEquals(Set.of("kubeproxy_sync_proxy_rules_duration_seconds_bucket"), PromQlNames.of(
        "histogram_quantile(0.99, sum by (instance, le) (rate(kubeproxy_sync_proxy_rules_duration_seconds_bucket"
            + "{job=~\"$job\", instance=~\"$instance\"}[$__rate_interval])))"));
    assertEquals(Set.of("a_total", "b_seconds", "up"), PromQlNames.of(
        "(a_total > b_seconds) and on (instance) (time() - b_seconds > 60) or up{x=\"y by (z)\"} == 0 unless 1e3"));
    assertEquals(Set.of("process_resident_memory_bytes", "process_memory_limit_bytes"), PromQlNames.of(
        "process_resident_memory_bytes{job=~\".*kube-proxy.*\"}\n / process_memory_limit_bytes > 0.9"));
  }
}
