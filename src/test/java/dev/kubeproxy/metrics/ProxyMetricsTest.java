package dev.kubeproxy.metrics;

import dev.kubeproxy.config.ProxyMode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Exact exposition (names, types, help, labels, buckets) of every kubeproxy_* family. */
@Unit
class ProxyMetricsTest {
  private static final Pattern TYPE = Pattern.compile("^# TYPE (\\S+) (\\S+)$", Pattern.MULTILINE);

  private static Set<String> typeLines(String text) {
    Set<String> lines = new TreeSet<>();
    Matcher m = TYPE.matcher(text);
    while (m.find()) {
      lines.add(m.group(1) + " " + m.group(2));
    }
    return lines;
  }

  /** The families without labels, there from the start in every mode. */
  private static final List<String> COMMON = List.of(
      "kubeproxy_sync_proxy_rules_endpoint_changes_pending gauge",
      "kubeproxy_sync_proxy_rules_endpoint_changes_total counter",
      "kubeproxy_sync_proxy_rules_service_changes_pending gauge",
      "kubeproxy_sync_proxy_rules_service_changes_total counter");

  /** The per-family families of every mode, there once a family has synced. */
  private static final List<String> COMMON_PER_FAMILY = List.of(
      "kubeproxy_network_programming_duration_seconds histogram",
      "kubeproxy_sync_proxy_rules_duration_seconds histogram",
      "kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds gauge",
      "kubeproxy_sync_proxy_rules_last_timestamp_seconds gauge",
      "kubeproxy_conntrack_reconciler_sync_duration_seconds histogram",
      "kubeproxy_conntrack_reconciler_deleted_entries_total counter");

  private static void oneSync(ProxyMetrics m, String family) {
    m.observeSyncDuration(family, Duration.ofMillis(1));
    m.observeNetworkProgrammingLatency(family, Duration.ofMillis(1));
    m.setLastQueuedTimestamp(family, Instant.EPOCH);
    m.setLastSyncTimestamp(family, Instant.EPOCH);
    m.observeConntrackReconcile(family, Duration.ofMillis(1), 0);
  }

  @Test
  void iptablesModeRegistersTheCommonAndIptablesSets() {
    ProxyMetrics m = new ProxyMetrics().registerFor(ProxyMode.IPTABLES);
    // label vectors appear once a series exists
    oneSync(m, "IPv4");
    m.setNoLocalEndpoints("IPv4", "internal", 2);
    m.setNoLocalEndpoints("IPv4", "external", 0);
    m.setIptablesRulesTotal("IPv4", "nat", 12);
    m.setIptablesRulesTotal("IPv4", "filter", 3);
    m.setIptablesRulesTotal("IPv6", "nat", 7);
    m.setIptablesRulesLast("IPv4", "nat", 5);
    m.incIptablesRestoreFailures("IPv4");
    m.incIptablesPartialRestoreFailures("IPv6");
    m.observeFullSyncDuration("IPv4", Duration.ofMillis(1));
    m.observePartialSyncDuration("IPv4", Duration.ofMillis(1));
    m.incHealthz(200);
    m.incLivez(503);
    Set<String> expected = new TreeSet<>(COMMON);
    expected.addAll(COMMON_PER_FAMILY);
    expected.addAll(List.of(
        "kubeproxy_proxy_healthz_total counter",
        "kubeproxy_proxy_livez_total counter",
        "kubeproxy_sync_proxy_rules_no_local_endpoints_total gauge",
        "kubeproxy_sync_full_proxy_rules_duration_seconds histogram",
        "kubeproxy_sync_partial_proxy_rules_duration_seconds histogram",
        "kubeproxy_sync_proxy_rules_iptables_restore_failures_total counter",
        "kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total counter",
        "kubeproxy_sync_proxy_rules_iptables_total gauge",
        "kubeproxy_sync_proxy_rules_iptables_last gauge"));
    String text = m.registry().scrape();
    assertEquals(expected, typeLines(text));
    assertTrue(text.contains("# HELP kubeproxy_sync_proxy_rules_iptables_total [ALPHA] Total number of iptables rules owned by kube-proxy\n"
        + "# TYPE kubeproxy_sync_proxy_rules_iptables_total gauge\n"
        + "kubeproxy_sync_proxy_rules_iptables_total{ip_family=\"IPv4\",table=\"filter\"} 3\n"
        + "kubeproxy_sync_proxy_rules_iptables_total{ip_family=\"IPv4\",table=\"nat\"} 12\n"
        + "kubeproxy_sync_proxy_rules_iptables_total{ip_family=\"IPv6\",table=\"nat\"} 7\n"), text);
    assertTrue(text.contains("# HELP kubeproxy_sync_proxy_rules_no_local_endpoints_total [ALPHA] Number of services with a Local traffic policy and no endpoints\n"
        + "# TYPE kubeproxy_sync_proxy_rules_no_local_endpoints_total gauge\n"
        + "kubeproxy_sync_proxy_rules_no_local_endpoints_total{ip_family=\"IPv4\",traffic_policy=\"external\"} 0\n"
        + "kubeproxy_sync_proxy_rules_no_local_endpoints_total{ip_family=\"IPv4\",traffic_policy=\"internal\"} 2\n"), text);
    assertTrue(text.contains("kubeproxy_sync_proxy_rules_iptables_restore_failures_total{ip_family=\"IPv4\"} 1\n"), text);
    assertTrue(text.contains("kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total{ip_family=\"IPv6\"} 1\n"),
        text);
    assertTrue(text.contains("kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family=\"IPv4\"} 0\n"), text);
    assertTrue(text.contains("kubeproxy_proxy_healthz_total{code=\"200\"} 1\n"), text);
    assertTrue(text.contains("kubeproxy_proxy_livez_total{code=\"503\"} 1\n"), text);
    assertFalse(text.contains("nftables"));
  }

  @Test
  void nftablesModeHasItsOwnCountersAndNoIptablesOnes() {
    ProxyMetrics m = new ProxyMetrics().registerFor(ProxyMode.NFTABLES);
    oneSync(m, "IPv6");
    m.incNftablesSyncFailures("IPv6");
    m.incNftablesCleanupFailures("IPv6");
    m.setIptablesRulesTotal("IPv6", "nat", 1); // updated but not registered: must not show
    Set<String> expected = new TreeSet<>(COMMON);
    expected.addAll(COMMON_PER_FAMILY);
    expected.add("kubeproxy_sync_proxy_rules_nftables_sync_failures_total counter");
    expected.add("kubeproxy_sync_proxy_rules_nftables_cleanup_failures_total counter");
    String text = m.registry().scrape();
    assertEquals(expected, typeLines(text));
    assertTrue(text.contains("# HELP kubeproxy_sync_proxy_rules_nftables_sync_failures_total [ALPHA] Cumulative proxy nftables sync failures\n"
        + "# TYPE kubeproxy_sync_proxy_rules_nftables_sync_failures_total counter\n"
        + "kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family=\"IPv6\"} 1\n"), text);
    assertTrue(text.contains("kubeproxy_sync_proxy_rules_nftables_cleanup_failures_total{ip_family=\"IPv6\"} 1\n"));
  }

  @Test
  void ipvsModeAddsOnlyTheRestoreFailureCounter() {
    ProxyMetrics m = new ProxyMetrics().registerFor(ProxyMode.IPVS);
    m.incIptablesRestoreFailures("IPv4");
    Set<String> expected = new TreeSet<>(COMMON);
    expected.add("kubeproxy_sync_proxy_rules_iptables_restore_failures_total counter");
    assertEquals(expected, typeLines(m.registry().scrape()));
  }

  @Test
  void syncDurationUsesExp15Buckets() {
    ProxyMetrics m = new ProxyMetrics().registerFor(ProxyMode.IPTABLES);
    m.observeSyncDuration("IPv4", Duration.ofMillis(3));
    m.observeSyncDuration("IPv4", Duration.ofMillis(20));
    m.observeSyncDuration("IPv4", Duration.ofSeconds(20));
    String text = m.registry().scrape();
    String expected = "# HELP kubeproxy_sync_proxy_rules_duration_seconds [ALPHA] SyncProxyRules latency in seconds\n"
        + "# TYPE kubeproxy_sync_proxy_rules_duration_seconds histogram\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"0.001\"} 0\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"0.002\"} 0\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"0.004\"} 1\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"0.008\"} 1\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"0.016\"} 1\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"0.032\"} 2\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"0.064\"} 2\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"0.128\"} 2\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"0.256\"} 2\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"0.512\"} 2\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"1.024\"} 2\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"2.048\"} 2\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"4.096\"} 2\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"8.192\"} 2\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"16.384\"} 2\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"+Inf\"} 3\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_sum{ip_family=\"IPv4\"} 20.023\n"
        + "kubeproxy_sync_proxy_rules_duration_seconds_count{ip_family=\"IPv4\"} 3\n";
    assertTrue(text.contains(expected), text);
  }

  @Test
  void networkProgrammingLatencyUsesUpstreamBuckets() {
    ProxyMetrics m = new ProxyMetrics().registerFor(ProxyMode.NFTABLES);
    m.observeNetworkProgrammingLatency("IPv4", Duration.ofMillis(1500));
    String text = m.registry().scrape();
    List<String> les = new ArrayList<>();
    Matcher le = Pattern.compile("kubeproxy_network_programming_duration_seconds_bucket\\{ip_family=\"IPv4\",le=\"([^\"]+)\"\\} (\\d+)").matcher(text);
    while (le.find()) {
      les.add(le.group(1));
    }
    List<String> expected = new ArrayList<>(List.of("0.25", "0.5"));
    for (int i = 1; i <= 59; i++) {
      expected.add(Integer.toString(i));
    }
    for (int i = 60; i <= 115; i += 5) {
      expected.add(Integer.toString(i));
    }
    expected.addAll(List.of("120", "150", "180", "210", "240", "270", "300", "+Inf"));
    assertEquals(expected, les);
    assertEquals(81, les.size());
    assertTrue(text.contains("kubeproxy_network_programming_duration_seconds_bucket{ip_family=\"IPv4\",le=\"1\"} 0\n"));
    assertTrue(text.contains("kubeproxy_network_programming_duration_seconds_bucket{ip_family=\"IPv4\",le=\"2\"} 1\n"));
    assertTrue(text.contains("# HELP kubeproxy_network_programming_duration_seconds [ALPHA] In Cluster Network Programming Latency in seconds\n"));
  }

  @Test
  void timestampsAreUnixSecondsInGoFloatFormat() {
    ProxyMetrics m = new ProxyMetrics().registerFor(ProxyMode.IPTABLES);
    m.setLastSyncTimestamp("IPv4", Instant.ofEpochSecond(1_717_171_717L, 500_000_000));
    m.setLastQueuedTimestamp("IPv6", Instant.ofEpochSecond(1_717_171_718L));
    String text = m.registry().scrape();
    assertTrue(text.contains("\nkubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family=\"IPv4\"} 1.7171717175e+09\n"),
        text);
    assertTrue(text.contains("\nkubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{ip_family=\"IPv6\"} 1.717171718e+09\n"),
        text);
  }

  @Test
  void changeCountersAndPendingGauges() {
    ProxyMetrics m = new ProxyMetrics().registerFor(ProxyMode.IPTABLES);
    m.incEndpointChanges();
    m.incEndpointChanges();
    m.incServiceChanges();
    m.setEndpointChangesPending(4);
    m.setServiceChangesPending(1);
    m.incIptablesRestoreFailures("IPv4");
    m.incIptablesPartialRestoreFailures("IPv4");
    m.observeFullSyncDuration("IPv4", Duration.ofMillis(1));
    m.observePartialSyncDuration("IPv4", Duration.ofMillis(1));
    String text = m.registry().scrape();
    assertTrue(text.contains("\nkubeproxy_sync_proxy_rules_endpoint_changes_total 2\n"), "no ip_family: " + text);
    assertTrue(text.contains("\nkubeproxy_sync_proxy_rules_service_changes_total 1\n"));
    assertTrue(text.contains("\nkubeproxy_sync_proxy_rules_endpoint_changes_pending 4\n"));
    assertTrue(text.contains("\nkubeproxy_sync_proxy_rules_service_changes_pending 1\n"));
    assertTrue(text.contains("\nkubeproxy_sync_proxy_rules_iptables_restore_failures_total{ip_family=\"IPv4\"} 1\n"));
    assertTrue(text.contains("\nkubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total{ip_family=\"IPv4\"} 1\n"));
    assertTrue(text.contains("\nkubeproxy_sync_full_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"0.001\"} 1\n"));
    assertTrue(text.contains("\nkubeproxy_sync_partial_proxy_rules_duration_seconds_count{ip_family=\"IPv4\"} 1\n"));
    assertTrue(text.contains("# HELP kubeproxy_sync_partial_proxy_rules_duration_seconds [ALPHA] SyncProxyRules latency in seconds for partial resyncs\n"));
    assertTrue(text.contains("# HELP kubeproxy_sync_full_proxy_rules_duration_seconds [ALPHA] SyncProxyRules latency in seconds for full resyncs\n"));
  }

  @Test
  void featureGatesAsBetaGauge() {
    ProxyMetrics m = new ProxyMetrics();
    m.setFeatureEnabled("NFTablesProxyMode", "BETA", true);
    m.setFeatureEnabled("AllAlpha", "ALPHA", false);
    assertEquals("# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature.\n"
        + "# TYPE kubernetes_feature_enabled gauge\n"
        + "kubernetes_feature_enabled{name=\"AllAlpha\",stage=\"ALPHA\"} 0\n"
        + "kubernetes_feature_enabled{name=\"NFTablesProxyMode\",stage=\"BETA\"} 1\n", m.registry().scrape());
  }

  @Test
  void sliMetricsSortLabelsByNameAndReset() {
    SliMetrics s = new SliMetrics();
    assertEquals("", s.registry().scrape());
    s.observe("ping", "healthz", true);
    assertEquals("# HELP kubernetes_healthcheck [STABLE] This metric records the result of a single healthcheck.\n"
        + "# TYPE kubernetes_healthcheck gauge\n"
        + "kubernetes_healthcheck{name=\"ping\",type=\"healthz\"} 1\n"
        + "# HELP kubernetes_healthchecks_total [STABLE] This metric records the results of all healthcheck.\n"
        + "# TYPE kubernetes_healthchecks_total counter\n"
        + "kubernetes_healthchecks_total{name=\"ping\",status=\"success\",type=\"healthz\"} 1\n", s.registry().scrape());
    s.registry().reset();
    assertEquals("", s.registry().scrape());
  }

  @Test
  void metricsScrapeAppendsJvmMeters() {
    String text = Metrics.scrape(new ProxyMetrics().registerFor(ProxyMode.IPTABLES));
    assertTrue(text.startsWith("# HELP kubeproxy_"), text);
    assertTrue(text.contains("# TYPE jvm_memory_used_bytes gauge"), text);
  }
}
