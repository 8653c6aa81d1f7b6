package dev.kubeproxy.config;

import dev.kubeproxy.gotext.GoDuration;
import dev.kubeproxy.net.HostPortText;
import dev.kubeproxy.net.IpAddresses;

import dev.kubeproxy.gotext.GoQuote;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * upstream's Validate (pkg/proxy/apis/config/validation/validation.go): every rule, in upstream's order, with
 * its field paths and messages. All errors are collected; {@link #aggregate} joins them as upstream prints
 * them.
 */
public final class ConfigValidation {
  private ConfigValidation() {}

  private static final String ROOT = "KubeProxyConfiguration";
  private static final String LINUX = ROOT + ".KubeProxyLinuxConfiguration";
  private static final String CONNTRACK = LINUX + ".KubeProxyConntrackConfiguration";
  /** The previous minor release: the only value --show-hidden-metrics-for-version accepts. */
  public static final String PREVIOUS_MINOR = "1.30";

  /** The errors of a completed configuration under the default feature gates, in upstream's order. */
  public static List<String> validate(KubeProxyConfiguration c) {
    return validate(c, FeatureGates.of(Map.of()));
  }

  public static List<String> validate(KubeProxyConfiguration c, FeatureGates gates) {
    List<String> errs = new ArrayList<>();
    String mode = c.mode == null ? "" : c.mode;

    // 1: feature gates apply to a copy of the gate
    try {
      FeatureGates.apply(c.featureGates == null ? Map.of() : c.featureGates);
    } catch (IllegalArgumentException e) {
      errs.add(invalid(ROOT + ".featureGates", goMap(c.featureGates), e.getMessage()));
    }

    // 2-4: the Linux section
    if (c.iptables.masqueradeBit != null && (c.iptables.masqueradeBit < 0 || c.iptables.masqueradeBit > 31)) {
      errs.add(invalid(ROOT + ".KubeProxyIPTablesConfiguration.MasqueradeBit", c.iptables.masqueradeBit,
          "must be within the range [0, 31]"));
    }
    if (mode.equals(ProxyMode.IPVS.text())) {
      String ipvs = ROOT + ".KubeProxyIPVSConfiguration";
      nonNegative(errs, ipvs + ".TCPTimeout", c.ipvs.tcpTimeout);
      nonNegative(errs, ipvs + ".TCPFinTimeout", c.ipvs.tcpFinTimeout);
      nonNegative(errs, ipvs + ".UDPTimeout", c.ipvs.udpTimeout);
      if (c.ipvs.excludeCIDRs != null) {
        for (int i = 0; i < c.ipvs.excludeCIDRs.size(); i++) {
          String cidr = c.ipvs.excludeCIDRs.get(i);
          if (!IpAddresses.isCidr(cidr)) {
            errs.add(invalid(ipvs + ".ExcludeCidrs[" + i + "]", cidr, "must be a valid CIDR"));
          }
        }
      }
    }
    if (mode.equals(ProxyMode.NFTABLES.text()) && c.nftables.masqueradeBit != null
        && (c.nftables.masqueradeBit < 0 || c.nftables.masqueradeBit > 31)) {
      errs.add(invalid(ROOT + ".KubeProxyNFTablesConfiguration.MasqueradeBit", c.nftables.masqueradeBit,
          "must be within the range [0, 31]"));
    }
    if (c.conntrack.maxPerCore != null && c.conntrack.maxPerCore < 0) {
      errs.add(invalid(CONNTRACK + ".MaxPerCore", c.conntrack.maxPerCore, "must be greater than or equal to 0"));
    }
    if (c.conntrack.min != null && c.conntrack.min < 0) {
      errs.add(invalid(CONNTRACK + ".Min", c.conntrack.min, "must be greater than or equal to 0"));
    }
    nonNegative(errs, CONNTRACK + ".TCPEstablishedTimeout", c.conntrack.tcpEstablishedTimeout);
    nonNegative(errs, CONNTRACK + ".TCPCloseWaitTimeout", c.conntrack.tcpCloseWaitTimeout);
    nonNegative(errs, CONNTRACK + ".UDPTimeout", c.conntrack.udpTimeout);
    nonNegative(errs, CONNTRACK + ".UDPStreamTimeout", c.conntrack.udpStreamTimeout);
    if (c.oomScoreAdj != null && (c.oomScoreAdj < -1000 || c.oomScoreAdj > 1000)) {
      errs.add(invalid(LINUX + ".OOMScoreAdj", c.oomScoreAdj, "must be within the range [-1000, 1000]"));
    }

    // 5: mode
    if (!mode.isEmpty()) {
      TreeSet<String> valid = new TreeSet<>();
      for (ProxyMode m : ProxyMode.values()) {
        // cmd/kube-proxy/app validateProxyModeLinux: ipvs is a valid mode only while KubeProxyIPVS is on
        boolean gated = (m == ProxyMode.NFTABLES && !gates.isEnabled("NFTablesProxyMode"))
            || (m == ProxyMode.IPVS && !gates.isEnabled(FeatureGates.KUBE_PROXY_IPVS));
        if (!gated) {
          valid.add(m.text());
        }
      }
      if (!valid.contains(mode)) {
        errs.add(invalid(ROOT + ".Mode.ProxyMode", mode, "must be " + String.join(", ", valid)
            + " or blank (blank means the best-available proxy [currently iptables])"));
      }
    }

    // 6-10
    if (c.clientConnection.burst < 0) {
      errs.add(invalid(ROOT + ".ClientConnection.Burst", c.clientConnection.burst,
          "must be greater than or equal to 0"));
    }
    if (c.configSyncPeriod.isNegative() || c.configSyncPeriod.isZero()) {
      errs.add(invalid(ROOT + ".ConfigSyncPeriod", c.configSyncPeriod, "must be greater than 0"));
    }
    Duration sync = c.syncPeriod();
    Duration minSync = c.minSyncPeriod();
    if (sync.isNegative() || sync.isZero()) {
      errs.add(invalid(ROOT + ".SyncPeriod", sync, "must be greater than 0"));
    }
    if (minSync.isNegative()) {
      errs.add(invalid(ROOT + ".MinSyncPeriod", minSync, "must be greater than or equal to 0"));
    }
    if (minSync.compareTo(sync) > 0) {
      errs.add(invalid(ROOT + ".SyncPeriod", minSync,
          "must be greater than or equal to " + ROOT + ".MinSyncPeriod"));
    }

    // 11-13: addresses
    if (!IpAddresses.isIp(c.bindAddress)) {
      errs.add(invalid(ROOT + ".BindAddress", c.bindAddress, "not a valid textual representation of an IP address"));
    }
    if (c.healthzBindAddress != null && !c.healthzBindAddress.isEmpty()) {
      hostPort(errs, ROOT + ".HealthzBindAddress", c.healthzBindAddress);
    }
    hostPort(errs, ROOT + ".MetricsBindAddress", c.metricsBindAddress == null ? "" : c.metricsBindAddress);

    // 14: nodePortAddresses (1.37: CIDRs and the keywords, in any combination, each keyword once)
    if (c.nodePortAddresses != null) {
      List<String> a = c.nodePortAddresses;
      java.util.Set<String> seen = new java.util.HashSet<>();
      for (int i = 0; i < a.size(); i++) {
        String entry = a.get(i);
        if (NodePortAddressKeywords.isKeyword(entry)) {
          if (!seen.add(entry)) {
            errs.add(ROOT + ".NodePortAddresses[" + i + "]: Duplicate value: " + goValue(entry));
          }
        } else if (!IpAddresses.isCidr(entry)) {
          errs.add(invalid(ROOT + ".NodePortAddresses[" + i + "]", entry,
              "must be a valid CIDR or one of the keywords 'primary', 'localhost', 'all'"));
        }
      }
    }

    // 15: hidden metrics
    String hidden = c.showHiddenMetricsForVersion == null ? "" : c.showHiddenMetricsForVersion;
    if (!hidden.isEmpty() && !hidden.equals(PREVIOUS_MINOR)) {
      errs.add(invalid(ROOT + ".ShowHiddenMetricsForVersion", hidden, "--show-hidden-metrics-for-version must be "
          + "omitted or have the value '" + PREVIOUS_MINOR + "'. Only the previous minor version is allowed"));
    }

    // 16-17: detect-local
    String local = c.detectLocalMode == null ? "" : c.detectLocalMode;
    switch (local) {
      case "ClusterCIDR" -> {
        List<String> cidrs = c.clusterCIDRs();
        String path = ROOT + ".DetectLocalConfiguration.ClusterCIDRs";
        if (cidrs.size() > 2 || (cidrs.size() == 2 && !isDualStackPair(cidrs))) {
          errs.add(invalid(path, goSlice(cidrs), "must be a either a single CIDR or dual-stack pair of CIDRs "
              + "(e.g. [10.100.0.0/16, fde4:8dba:82e1::/48]"));
        }
        for (int i = 0; i < cidrs.size(); i++) {
          if (!IpAddresses.isCidr(cidrs.get(i))) {
            errs.add(invalid(path + "[" + i + "]", cidrs.get(i),
                "must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)"));
          }
        }
      }
      case "BridgeInterface" -> {
        if (c.detectLocal.bridgeInterface == null || c.detectLocal.bridgeInterface.isEmpty()) {
          errs.add(invalid(ROOT + ".DetectLocalConfiguration.InterfaceName", "", "must not be empty"));
        }
      }
      case "InterfaceNamePrefix" -> {
        if (c.detectLocal.interfaceNamePrefix == null || c.detectLocal.interfaceNamePrefix.isEmpty()) {
          errs.add(invalid(ROOT + ".DetectLocalConfiguration.InterfacePrefix", "", "must not be empty"));
        }
      }
      case "NodeCIDR", "" -> { }
      default -> errs.add(ROOT + ".DetectLocalMode: Unsupported value: " + GoQuote.quote(local) + ": supported values: "
          + "\"ClusterCIDR\", \"NodeCIDR\", \"BridgeInterface\", \"InterfaceNamePrefix\", \"\"");
    }

    // 18: logging
    for (String e : validateLogging(c.logging, gates)) {
      errs.add(ROOT + "." + e);
    }
    return List.copyOf(new LinkedHashSet<>(errs));
  }

  /**
   * component-base's logging validation, paths starting at "logging." (used alone by "initialize
   * logging" and, prefixed, by Validate).
   */
  public static List<String> validateLogging(KubeProxyConfiguration.Logging l, FeatureGates gates) {
    List<String> errs = new ArrayList<>();
    String format = l.format == null ? "" : l.format;
    if (!format.equals("text") && !format.equals("json")) {
      errs.add("logging.format: Unsupported value: " + GoQuote.quote(format) + ": supported values: \"json\", \"text\"");
    }
    if (l.vmodule != null && !l.vmodule.isEmpty() && format.equals("json")) {
      errs.add("logging.vmodule: Forbidden: Only supported for text log format");
    }
    if (l.vmodule != null) {
      for (int i = 0; i < l.vmodule.size(); i++) {
        KubeProxyConfiguration.VModuleItem item = l.vmodule.get(i);
        if (item.filePattern == null || item.filePattern.isEmpty()) {
          errs.add("logging.vmodule[" + i + "].filePattern: Required value: file pattern must not be empty");
        }
      }
    }
    // component-base logs/api/v1 Validate: a flush period of zero or less would never flush
    if (l.flushFrequency != null && (l.flushFrequency.isNegative() || l.flushFrequency.isZero())) {
      errs.add("logging.flushFrequency: Invalid value: " + GoQuote.quote(GoDuration.format(l.flushFrequency))
          + ": must be positive");
    }
    if (!gates.isEnabled("LoggingAlphaOptions")) {
      if (l.options.text.splitStream) {
        errs.add("logging.options.text.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled");
      }
      if (!isZeroQuantity(l.options.text.infoBufferSize)) {
        errs.add("logging.options.text.infoBufferSize: Forbidden: Feature LoggingAlphaOptions is disabled");
      }
    }
    if (!gates.isEnabled("LoggingBetaOptions")) {
      if (l.options.json.splitStream) {
        errs.add("logging.options.json.splitStream: Forbidden: Feature LoggingBetaOptions is disabled");
      }
      if (!isZeroQuantity(l.options.json.infoBufferSize)) {
        errs.add("logging.options.json.infoBufferSize: Forbidden: Feature LoggingBetaOptions is disabled");
      }
    }
    return errs;
  }

  private static boolean isZeroQuantity(String q) {
    if (q == null || q.isEmpty()) {
      return true;
    }
    String digits = q.replaceAll("[^0-9.]", "");
    return digits.isEmpty() || digits.chars().allMatch(ch -> ch == '0' || ch == '.');
  }

  /** upstream's utilerrors.NewAggregate text: one error alone, several as [e1, e2]. */
  public static String aggregate(List<String> errors) {
    if (errors.size() == 1) {
      return errors.get(0);
    }
    return "[" + String.join(", ", errors) + "]";
  }

  private static void hostPort(List<String> errs, String path, String value) {
    HostPortText hp;
    try {
      hp = HostPortText.split(value);
    } catch (IllegalArgumentException e) {
      errs.add(invalid(path, value, "must be IP:port"));
      return;
    }
    if (!IpAddresses.isIp(hp.host())) {
      errs.add(invalid(path, hp.host(), "must be a valid IP"));
    }
    int port;
    try {
      port = Integer.parseInt(hp.port());
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 1 || port > 65535) {
      errs.add(invalid(path, hp.port(), "must be a valid port"));
    }
  }

  private static boolean isDualStackPair(List<String> cidrs) {
    InetAddress a = IpAddresses.cidrAddress(cidrs.get(0));
    InetAddress b = IpAddresses.cidrAddress(cidrs.get(1));
    if (a == null || b == null) {
      return false;
    }
    return (a instanceof Inet4Address) != (b instanceof Inet4Address);
  }

  private static void nonNegative(List<String> errs, String path, Duration d) {
    if (d != null && d.isNegative()) {
      errs.add(invalid(path, d, "must be greater than or equal to 0"));
    }
  }

  /** {@code <path>: Invalid value: <value>: <detail>} with Go's value printing. */
  static String invalid(String path, Object value, String detail) {
    return path + ": Invalid value: " + goValue(value) + ": " + detail;
  }

  private static String goValue(Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof String s) {
      return GoQuote.quote(s);
    }
    if (v instanceof Duration d) {
      return GoDuration.format(d);
    }
    if (v instanceof GoLiteral g) {
      return g.text();
    }
    return v.toString();
  }

  /** A value already printed in Go's %#v syntax. */
  private record GoLiteral(String text) {}

  private static GoLiteral goSlice(List<String> list) {
    List<String> quoted = new ArrayList<>();
    for (String s : list) {
      quoted.add(GoQuote.quote(s));
    }
    return new GoLiteral("[]string{" + String.join(", ", quoted) + "}");
  }

  private static GoLiteral goMap(Map<String, Boolean> map) {
    List<String> entries = new ArrayList<>();
    if (map != null) {
      new java.util.TreeMap<>(map).forEach((k, v) -> entries.add(GoQuote.quote(k) + ":" + v));
    }
    return new GoLiteral("map[string]bool{" + String.join(", ", entries) + "}");
  }

}
