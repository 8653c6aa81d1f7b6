package dev.kubeproxy.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The feature gates kube-proxy knows (k8s.io/kubernetes pkg/features/kube_features.go, the
 * gates kube-proxy reads) and their state after --feature-gates / featureGates were applied. The
 * agent builds its state once ({@link #of}) into its {@code AgentContext}; there is no process-wide
 * state.
 */
public final class FeatureGates {
  /** Release stage of a gate, as --help and kubernetes_feature_enabled{stage} print it. */
  public enum Stage {
    ALPHA, BETA, GA, DEPRECATED;

    /** The label value of kubernetes_feature_enabled: "ALPHA", "BETA", "" for GA, "DEPRECATED". */
    public String metricLabel() {
      return this == GA ? "" : name();
    }
  }

  /** One known gate: name, stage, default, and whether it can still be changed. */
  public record Gate(String name, Stage stage, boolean defaultValue, boolean locked) {}

  public static final String ALL_ALPHA = "AllAlpha";
  public static final String ALL_BETA = "AllBeta";

  /** Turns off programming Service externalIPs (deprecated in 1.36, still on by default in 1.37). */
  public static final String ALLOW_SERVICE_EXTERNAL_IPS = "AllowServiceExternalIPs";
  /** Allows the ipvs mode (deprecated in 1.37, still on by default). */
  public static final String KUBE_PROXY_IPVS = "KubeProxyIPVS";
  /** Localhost NodePorts in nftables mode (alpha in 1.37). */
  public static final String KUBE_PROXY_NFTABLES_LOCALHOST_NODE_PORTS = "KubeProxyNFTablesLocalhostNodePorts";
  /** nftables transactions and read-backs over netlink instead of the nft binary (beta, on, in 1.37). */
  public static final String NFTABLES_NETLINK = "NFTablesNetlink";
  public static final String COMPONENT_FLAGZ = "ComponentFlagz";
  public static final String COMPONENT_STATUSZ = "ComponentStatusz";

  /**
   * The gates kube-proxy 1.37 reads (pkg/features/versioned_kube_features.go at 1.37) plus the
   * bulk toggles, sorted by name. GA gates are locked on; gates upstream has removed by 1.37
   * (KubeProxyDrainingTerminatingNodes, LoadBalancerIPMode) are unknown, so setting them is an
   * error as upstream.
   */
  public static final List<Gate> KNOWN = List.of(
      new Gate(ALL_ALPHA, Stage.ALPHA, false, false),
      new Gate(ALL_BETA, Stage.BETA, false, false),
      new Gate(ALLOW_SERVICE_EXTERNAL_IPS, Stage.DEPRECATED, true, false),
      new Gate(COMPONENT_FLAGZ, Stage.BETA, true, false),
      new Gate("ComponentSLIs", Stage.GA, true, true),
      new Gate(COMPONENT_STATUSZ, Stage.BETA, true, false),
      new Gate("ContextualLogging", Stage.BETA, true, false),
      new Gate(KUBE_PROXY_IPVS, Stage.DEPRECATED, true, false),
      new Gate(KUBE_PROXY_NFTABLES_LOCALHOST_NODE_PORTS, Stage.ALPHA, false, false),
      new Gate("LoggingAlphaOptions", Stage.ALPHA, false, false),
      new Gate("LoggingBetaOptions", Stage.BETA, true, false),
      new Gate("MultiCIDRServiceAllocator", Stage.GA, true, true),
      new Gate(NFTABLES_NETLINK, Stage.BETA, true, false),
      new Gate("NFTablesProxyMode", Stage.GA, true, true),
      new Gate("NativeHistograms", Stage.BETA, true, false),
      new Gate("PreferSameTrafficDistribution", Stage.GA, true, true),
      new Gate("ServiceTrafficDistribution", Stage.GA, true, true),
      new Gate("TopologyAwareHints", Stage.GA, true, true),
      new Gate("WinDSR", Stage.GA, true, true),
      new Gate("WinOverlay", Stage.GA, true, true));

  private static final Map<String, Gate> BY_NAME = byName(KNOWN);

  private static Map<String, Gate> byName(List<Gate> gates) {
    Map<String, Gate> byName = new LinkedHashMap<>();
    for (Gate g : gates) {
      byName.put(g.name(), g);
    }
    return Collections.unmodifiableMap(byName);
  }

  private final Map<String, Boolean> explicit;

  private FeatureGates(Map<String, Boolean> explicit) {
    this.explicit = Collections.unmodifiableMap(new TreeMap<>(explicit));
  }

  /** The result of applying a featureGates map: the state, and warnings to log. */
  public record Applied(FeatureGates gates, List<String> warnings) {}

  /**
   * Applies a featureGates map as upstream's SetFromMap does (names in sorted order).
   *
   * @throws IllegalArgumentException {@code unrecognized feature gate: Foo} or {@code cannot set
   *     feature gate X to false, feature is locked to true}
   */
  public static Applied apply(Map<String, Boolean> requested) {
    List<String> warnings = new ArrayList<>();
    Map<String, Boolean> set = new TreeMap<>();
    for (Map.Entry<String, Boolean> e : new TreeMap<>(requested).entrySet()) {
      Gate gate = BY_NAME.get(e.getKey());
      boolean value = Boolean.TRUE.equals(e.getValue());
      if (gate == null) {
        throw new IllegalArgumentException("unrecognized feature gate: " + e.getKey());
      }
      if (gate.locked() && value != gate.defaultValue()) {
        throw new IllegalArgumentException("cannot set feature gate " + gate.name() + " to " + value
            + ", feature is locked to " + gate.defaultValue());
      }
      set.put(gate.name(), value);
      if (gate.stage() == Stage.GA) {
        warnings.add("Setting GA feature gate " + gate.name() + "=" + value + ". It will be removed in a future release.");
      } else if (gate.stage() == Stage.DEPRECATED) {
        warnings.add("Setting deprecated feature gate " + gate.name() + "=" + value
            + ". It will be removed in a future release.");
      }
    }
    return new Applied(new FeatureGates(set), warnings);
  }

  /** The gate state of an already validated featureGates map. */
  public static FeatureGates of(Map<String, Boolean> featureGates) {
    return apply(featureGates == null ? Map.of() : featureGates).gates();
  }

  /** Defaults with these explicit settings; AllAlpha/AllBeta switch their stage's unset gates. */
  public boolean isEnabled(String name) {
    Gate gate = BY_NAME.get(name);
    if (gate == null) {
      throw new IllegalArgumentException("feature " + name + " is not registered");
    }
    Boolean value = explicit.get(name);
    if (value != null) {
      return value;
    }
    if (gate.stage() == Stage.ALPHA && !name.equals(ALL_ALPHA) && Boolean.TRUE.equals(explicit.get(ALL_ALPHA))) {
      return true;
    }
    if (gate.stage() == Stage.BETA && !name.equals(ALL_BETA) && Boolean.TRUE.equals(explicit.get(ALL_BETA))) {
      return true;
    }
    return gate.defaultValue();
  }

  /** Every known gate with its effective state, sorted by name. */
  public Map<String, Boolean> states() {
    Map<String, Boolean> m = new TreeMap<>();
    for (Gate g : KNOWN) {
      m.put(g.name(), isEnabled(g.name()));
    }
    return m;
  }

  /** The --feature-gates help lines: non-GA, non-deprecated gates as {@code Name=true|false (BETA - default=true)}. */
  public static List<String> helpLines() {
    List<String> lines = new ArrayList<>();
    for (Gate g : KNOWN) {
      if (g.stage() == Stage.GA || g.stage() == Stage.DEPRECATED) {
        continue;
      }
      lines.add(g.name() + "=true|false (" + g.stage().name() + " - default=" + g.defaultValue() + ")");
    }
    // featuregate.KnownFeatures sorts the formatted lines (byte order)
    Collections.sort(lines);
    return lines;
  }
}
