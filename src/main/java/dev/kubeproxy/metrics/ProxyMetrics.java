package dev.kubeproxy.metrics;

import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.metrics.KubeMetric.Stability;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.function.Supplier;

/**
 * The kubeproxy_* meters (pkg/proxy/metrics/metrics.go). The verticle that owns a value updates it through
 * these methods; names, types, help texts, labels and buckets are upstream's. The per-family
 * meters carry the ip_family label ("IPv4", "IPv6") as upstream's since 1.33 (pkg/proxy/metrics/metrics.go):
 * sync durations and timestamps, network programming latency, no-local-endpoints, the rule counts
 * and the restore/sync failure counters; the change counters, healthz/livez and nfacct do not.
 *
 * <p>Meters exist from construction and can always be updated, but /metrics shows only the sets
 * registered for the running mode ({@link #registerFor}), as upstream registers them once at start:
 * the common set in every mode, plus the iptables-only or nftables-only ones.
 */
public class ProxyMetrics {
  /** Upstream's EXP15: 1 ms doubling 15 times (0.001 … 16.384 s). */
  static final double[] EXP15 = KubeHistogram.exponentialBuckets(0.001, 2, 15);
  /** Upstream's network-programming-latency buckets (0.25 s … 300 s, 80 bounds). */
  static final double[] NPL = networkProgrammingBuckets();

  private static final String NFACCT_INVALID_DROPPED = "kubeproxy_iptables_ct_state_invalid_dropped_packets_total";

  private final KubeRegistry registry = new KubeRegistry();

  final KubeHistogram syncDuration = new KubeHistogram("kubeproxy_sync_proxy_rules_duration_seconds",
      "SyncProxyRules latency in seconds", Stability.ALPHA, EXP15, "ip_family");
  final KubeHistogram fullSyncDuration = new KubeHistogram("kubeproxy_sync_full_proxy_rules_duration_seconds",
      "SyncProxyRules latency in seconds for full resyncs", Stability.ALPHA, EXP15, "ip_family");
  final KubeHistogram partialSyncDuration = new KubeHistogram("kubeproxy_sync_partial_proxy_rules_duration_seconds",
      "SyncProxyRules latency in seconds for partial resyncs", Stability.ALPHA, EXP15, "ip_family");
  final KubeGauge lastSyncTimestamp = new KubeGauge("kubeproxy_sync_proxy_rules_last_timestamp_seconds",
      "The last time proxy rules were successfully synced", Stability.ALPHA, "ip_family");
  final KubeGauge lastQueuedTimestamp = new KubeGauge("kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds",
      "The last time a sync of proxy rules was queued", Stability.ALPHA, "ip_family");
  final KubeHistogram networkProgrammingLatency = new KubeHistogram("kubeproxy_network_programming_duration_seconds",
      "In Cluster Network Programming Latency in seconds", Stability.ALPHA, NPL, "ip_family");
  final KubeGauge endpointChangesPending = new KubeGauge("kubeproxy_sync_proxy_rules_endpoint_changes_pending",
      "Pending proxy rules Endpoint changes", Stability.ALPHA);
  final KubeCounter endpointChangesTotal = new KubeCounter("kubeproxy_sync_proxy_rules_endpoint_changes_total",
      "Cumulative proxy rules Endpoint changes", Stability.ALPHA);
  final KubeGauge serviceChangesPending = new KubeGauge("kubeproxy_sync_proxy_rules_service_changes_pending",
      "Pending proxy rules Service changes", Stability.ALPHA);
  final KubeCounter serviceChangesTotal = new KubeCounter("kubeproxy_sync_proxy_rules_service_changes_total",
      "Cumulative proxy rules Service changes", Stability.ALPHA);
  final KubeGauge noLocalEndpoints = new KubeGauge("kubeproxy_sync_proxy_rules_no_local_endpoints_total",
      "Number of services with a Local traffic policy and no endpoints", Stability.ALPHA, "ip_family", "traffic_policy");
  final KubeCounter iptablesRestoreFailures = new KubeCounter("kubeproxy_sync_proxy_rules_iptables_restore_failures_total",
      "Cumulative proxy iptables restore failures", Stability.ALPHA, "ip_family");
  final KubeCounter iptablesPartialRestoreFailures = new KubeCounter(
      "kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total",
      "Cumulative proxy iptables partial restore failures", Stability.ALPHA, "ip_family");
  final KubeGauge iptablesRulesTotal = new KubeGauge("kubeproxy_sync_proxy_rules_iptables_total",
      "Total number of iptables rules owned by kube-proxy", Stability.ALPHA, "ip_family", "table");
  final KubeGauge iptablesRulesLast = new KubeGauge("kubeproxy_sync_proxy_rules_iptables_last",
      "Number of iptables rules written by kube-proxy in last sync", Stability.ALPHA, "ip_family", "table");
  final KubeCounter nftablesSyncFailures = new KubeCounter("kubeproxy_sync_proxy_rules_nftables_sync_failures_total",
      "Cumulative proxy nftables sync failures", Stability.ALPHA, "ip_family");
  final KubeCounter nftablesCleanupFailures = new KubeCounter("kubeproxy_sync_proxy_rules_nftables_cleanup_failures_total",
      "Cumulative proxy nftables cleanup failures", Stability.ALPHA, "ip_family");
  final KubeCounter healthzTotal = new KubeCounter("kubeproxy_proxy_healthz_total",
      "Cumulative proxy healthz HTTP status", Stability.ALPHA, "code");
  final KubeCounter livezTotal = new KubeCounter("kubeproxy_proxy_livez_total",
      "Cumulative proxy livez HTTP status", Stability.ALPHA, "code");
  final KubeHistogram conntrackReconcileDuration = new KubeHistogram(
      "kubeproxy_conntrack_reconciler_sync_duration_seconds", "ReconcileConntrackFlowsLatency latency in seconds",
      Stability.ALPHA, EXP15, "ip_family");
  final KubeCounter conntrackReconcileDeleted = new KubeCounter("kubeproxy_conntrack_reconciler_deleted_entries_total",
      "Cumulative conntrack flows deleted by conntrack reconciler", Stability.ALPHA, "ip_family");
  final KubeGauge localhostNodePortListeners = new KubeGauge("kubeproxy_nftables_localhost_nodeport_listeners",
      "Number of localhost NodePort listeners of the userspace proxy", Stability.ALPHA, "ip_family");
  final KubeCounter localhostNodePortListenerFailures = new KubeCounter(
      "kubeproxy_nftables_localhost_nodeport_listener_creation_failures_total",
      "Cumulative failures to create a localhost NodePort listener", Stability.ALPHA, "ip_family");
  final KubeCollectedCounterVec localhostNodePortRejected = new KubeCollectedCounterVec(
      "kubeproxy_nftables_localhost_nodeport_rejected_packets_total",
      "Number of packets rejected on localhost NodePorts whose protocol the userspace proxy does not serve",
      Stability.ALPHA, List.of("ip_family", "protocol"));
  final KubeGauge featureEnabled = new KubeGauge("kubernetes_feature_enabled",
      "This metric records the data about the stage and enablement of a k8s feature.", Stability.BETA, "name", "stage");

  /**
   * Registers the metric sets of this proxy mode (pkg/proxy/metrics/metrics.go RegisterMetrics); call once at start, as
   * upstream's ProxyServer.Run does. iptables and ipvs add their backend sets, nftables its own.
   */
  public ProxyMetrics registerFor(ProxyMode mode) {
    for (KubeMetric<?> m : common()) {
      registry.register(m);
    }
    switch (mode) {
      case IPTABLES -> {
        registry.register(fullSyncDuration);
        registry.register(partialSyncDuration);
        registry.register(iptablesRestoreFailures);
        registry.register(iptablesPartialRestoreFailures);
        registry.register(iptablesRulesTotal);
        registry.register(iptablesRulesLast);
      }
      case IPVS -> registry.register(iptablesRestoreFailures);
      case NFTABLES -> {
        registry.register(nftablesSyncFailures);
        registry.register(nftablesCleanupFailures);
        registry.register(localhostNodePortListeners);
        registry.register(localhostNodePortListenerFailures);
        registry.register(localhostNodePortRejected);
      }
    }
    return this;
  }

  /**
   * Registers the two nfacct-based counters of iptables mode (upstream 1.31's nfacct metric
   * collectors), whose values are the packet counts of the kernel counters, read at each scrape.
   *
   * @param invalidDropped    packets of ct_state_invalid_dropped_pkts; empty when unreadable
   * @param localhostAccepted packets of localhost_nps_accepted_pkts; empty when unreadable
   */
  public void registerNfacctCounters(Supplier<OptionalDouble> invalidDropped, Supplier<OptionalDouble> localhostAccepted) {
    if (registry.isRegistered(NFACCT_INVALID_DROPPED)) {
      return; // registered once per process, as upstream's collectors are
    }
    registry.register(new KubeCollectedCounter(NFACCT_INVALID_DROPPED,
        "packets dropped by iptables to work around conntrack problems", Stability.ALPHA, invalidDropped));
    registry.register(new KubeCollectedCounter("kubeproxy_iptables_localhost_nodeports_accepted_packets_total",
        "Number of packets accepted on nodeports of loopback interface", Stability.ALPHA, localhostAccepted));
  }

  /**
   * Adds a family's localhost NodePort reject counters to
   * kubeproxy_nftables_localhost_nodeport_rejected_packets_total, read at each scrape (upstream's
   * nftables named-counter collector).
   *
   * @param packetsByProtocol protocol ("UDP") to packets rejected; empty when the counters cannot be read
   */
  public void addLocalhostNodePortRejected(String ipFamily, Supplier<Map<String, Long>> packetsByProtocol) {
    localhostNodePortRejected.addSource(() -> {
      Map<List<String>, Double> samples = new LinkedHashMap<>();
      packetsByProtocol.get().forEach((protocol, packets) -> samples.put(List.of(ipFamily, protocol), (double) packets));
      return samples;
    });
  }

  public void setLocalhostNodePortListeners(String ipFamily, int n) {
    localhostNodePortListeners.set(n, ipFamily);
  }

  public void incLocalhostNodePortListenerFailures(String ipFamily) {
    localhostNodePortListenerFailures.inc(ipFamily);
  }

  private List<KubeMetric<?>> common() {
    List<KubeMetric<?>> list = new ArrayList<>();
    list.add(syncDuration);
    list.add(lastQueuedTimestamp);
    list.add(lastSyncTimestamp);
    list.add(endpointChangesPending);
    list.add(endpointChangesTotal);
    list.add(serviceChangesPending);
    list.add(serviceChangesTotal);
    list.add(healthzTotal);
    list.add(livezTotal);
    list.add(networkProgrammingLatency);
    list.add(noLocalEndpoints);
    list.add(conntrackReconcileDuration);
    list.add(conntrackReconcileDeleted);
    return list;
  }

  /** The registry /metrics writes (the registered families only). */
  public KubeRegistry registry() {
    return registry;
  }

  public void observeSyncDuration(String ipFamily, Duration d) {
    syncDuration.observe(seconds(d), ipFamily);
  }

  public void observeFullSyncDuration(String ipFamily, Duration d) {
    fullSyncDuration.observe(seconds(d), ipFamily);
  }

  public void observePartialSyncDuration(String ipFamily, Duration d) {
    partialSyncDuration.observe(seconds(d), ipFamily);
  }

  public void setLastSyncTimestamp(String ipFamily, Instant t) {
    lastSyncTimestamp.set(epochSeconds(t), ipFamily);
  }

  public void setLastQueuedTimestamp(String ipFamily, Instant t) {
    lastQueuedTimestamp.set(epochSeconds(t), ipFamily);
  }

  public void observeNetworkProgrammingLatency(String ipFamily, Duration d) {
    networkProgrammingLatency.observe(seconds(d), ipFamily);
  }

  public void setEndpointChangesPending(int n) {
    endpointChangesPending.set(n);
  }

  public void incEndpointChanges() {
    endpointChangesTotal.inc();
  }

  public void setServiceChangesPending(int n) {
    serviceChangesPending.set(n);
  }

  public void incServiceChanges() {
    serviceChangesTotal.inc();
  }

  /** trafficPolicy: "internal" or "external". */
  public void setNoLocalEndpoints(String ipFamily, String trafficPolicy, int n) {
    noLocalEndpoints.set(n, ipFamily, trafficPolicy);
  }

  /** One conntrack reconcile of this family ("IPv4", "IPv6"): how long it took, how many entries went. */
  public void observeConntrackReconcile(String ipFamily, Duration took, int deleted) {
    conntrackReconcileDuration.observe(seconds(took), ipFamily);
    conntrackReconcileDeleted.add(deleted, ipFamily);
  }

  /**
   * Shows a family's failure counters at 0 from the start: a counter that first appears at 1
   * hides that failure from Prometheus' increase() and rate(), which alerts rely on. (Every
   * counter is written, registered for this mode or not; the registry prints only registered ones.)
   */
  public void initFamily(String ipFamily) {
    for (KubeCounter failures : List.of(iptablesRestoreFailures, iptablesPartialRestoreFailures, nftablesSyncFailures,
        nftablesCleanupFailures)) {
      failures.add(0, ipFamily);
    }
  }

  public void incIptablesRestoreFailures(String ipFamily) {
    iptablesRestoreFailures.inc(ipFamily);
  }

  public void incIptablesPartialRestoreFailures(String ipFamily) {
    iptablesPartialRestoreFailures.inc(ipFamily);
  }

  /** table: "filter" or "nat"; rules owned by kube-proxy after a successful sync. */
  public void setIptablesRulesTotal(String ipFamily, String table, int n) {
    iptablesRulesTotal.set(n, ipFamily, table);
  }

  /** table: "filter" or "nat"; rules written in the last sync. */
  public void setIptablesRulesLast(String ipFamily, String table, int n) {
    iptablesRulesLast.set(n, ipFamily, table);
  }

  public void incNftablesSyncFailures(String ipFamily) {
    nftablesSyncFailures.inc(ipFamily);
  }

  public void incNftablesCleanupFailures(String ipFamily) {
    nftablesCleanupFailures.inc(ipFamily);
  }

  public void incHealthz(int code) {
    healthzTotal.inc(Integer.toString(code));
  }

  public void incLivez(int code) {
    livezTotal.inc(Integer.toString(code));
  }

  /**
   * kubernetes_feature_enabled{name,stage} = 1 or 0 for one feature gate (upstream's stage label:
   * "ALPHA", "BETA", "DEPRECATED", or "" for GA). The first call registers the family, as upstream
   * does after validating the gates.
   */
  public void setFeatureEnabled(String name, String stage, boolean enabled) {
    registry.register(featureEnabled);
    featureEnabled.set(enabled ? 1 : 0, name, stage == null ? "" : stage);
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }

  private static double epochSeconds(Instant t) {
    return t.getEpochSecond() + t.getNano() / 1e9;
  }

  private static double[] networkProgrammingBuckets() {
    List<Double> b = new ArrayList<>(List.of(0.25, 0.5));
    for (int s = 1; s <= 59; s++) {
      b.add((double) s);
    }
    for (int s = 60; s <= 115; s += 5) {
      b.add((double) s);
    }
    for (int s = 120; s <= 300; s += 30) {
      b.add((double) s);
    }
    return b.stream().mapToDouble(Double::doubleValue).toArray();
  }
}
