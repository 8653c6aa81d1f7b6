package dev.kubeproxy.cli;

import static dev.kubeproxy.cli.FlagType.*;

import dev.kubeproxy.config.ConfigDefaults;
import dev.kubeproxy.config.FeatureGates;
import dev.kubeproxy.gotext.GoDuration;
import dev.kubeproxy.config.SyncSettings;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every flag of upstream kube-proxy v1.31 on Linux (cmd/kube-proxy/app/options.go Options.AddFlags), with
 * upstream's names, types and defaults, plus this agent's own --manifests and --dry-run. The help texts are
 * ours.
 */
public final class KubeProxyFlags {
  private KubeProxyFlags() {}

  public static final String DEPRECATED_PORT = "This flag is deprecated and will be removed in a future release. "
      + "Please use --%s instead.";

  private static final String SYNC_PERIOD = GoDuration.format(SyncSettings.DEFAULT_SYNC_PERIOD);
  private static final String MIN_SYNC_PERIOD = GoDuration.format(SyncSettings.DEFAULT_MIN_SYNC_PERIOD);

  public static final List<FlagDef> ALL;
  private static final Map<String, FlagDef> BY_NAME;

  static {
    List<FlagDef> f = new ArrayList<>();
    // the options that are not part of the configuration file
    f.add(def("config", STRING, "", "The path to the configuration file (KubeProxyConfiguration, YAML or JSON). "
        + "With it, the configuration flags below are ignored, except --hostname-override and explicitly set "
        + "logging flags."));
    f.add(def("write-config-to", STRING, "", "If set, write the effective configuration to this file as "
        + "v1alpha1 YAML and exit."));
    f.add(def("cleanup", BOOL, "false", "If true, remove every rule kube-proxy creates (iptables, ip6tables and "
        + "nftables) and exit."));
    f.add(def("init-only", BOOL, "false", "If true, do the one-time privileged setup and exit, without "
        + "programming any rules."));
    f.add(def("master", STRING, "", "The address of the Kubernetes API server (overrides any value in kubeconfig)."));
    f.add(field("hostnameOverride",
        "hostname-override", STRING, "If non-empty, use this string as the node name instead of the "
        + "actual hostname."));
    // the configuration flags
    f.add(field("featureGates",
        "feature-gates", MAP_STRING_BOOL, "A set of key=value pairs that describe feature gates for "
        + "alpha/experimental features. Options are:\n" + String.join("\n", FeatureGates.helpLines())
        + "\nThis parameter is ignored if a config file is specified by --config."));
    f.add(field("clientConnection.kubeconfig",
        "kubeconfig", STRING, "Path to a kubeconfig file with authorization information (the master "
        + "location can be overridden by --master)."));
    f.add(field("clientConnection.contentType",
        "kube-api-content-type", STRING,
        "Content type of requests sent to the API server."));
    f.add(field("clientConnection.burst",
        "kube-api-burst", INT32, "Burst to use while talking with the Kubernetes API server."));
    f.add(field("clientConnection.qps",
        "kube-api-qps", FLOAT32, "QPS to use while talking with the Kubernetes API server."));
    f.add(field("bindAddress",
        "bind-address", IP, "Overrides kube-proxy's idea of the node's primary IP (no socket is "
        + "bound to it). This parameter is ignored if a config file is specified by --config."));
    f.add(field("healthzBindAddress",
        "healthz-bind-address", IPPORT, "The IP address and port for the health check "
        + "server to serve on, defaulting to \"0.0.0.0:10256\". This parameter is ignored if a config file is "
        + "specified by --config."));
    f.add(field("metricsBindAddress",
        "metrics-bind-address", IPPORT, "The IP address and port for the metrics server "
        + "to serve on, defaulting to \"127.0.0.1:10249\" (use 0.0.0.0:10249 to serve on all interfaces). This "
        + "parameter is ignored if a config file is specified by --config."));
    f.add(field("bindAddressHardFail",
        "bind-address-hard-fail", BOOL, "If true, kube-proxy treats a failure to bind to a port as "
        + "fatal and exits."));
    f.add(field("enableProfiling",
        "profiling", BOOL, "If true, serve profiling and debug endpoints on the metrics server "
        + "(thread dump, heap histogram, JFR recording, /debug/flags/v). This parameter is ignored if a config "
        + "file is specified by --config."));
    f.add(field("showHiddenMetricsForVersion",
        "show-hidden-metrics-for-version", STRING, "The previous version for which you want to show "
        + "hidden metrics. Only the previous minor version is meaningful (1.30)."));
    f.add(field("mode",
        "proxy-mode", PROXY_MODE, "Which proxy mode to use: on Linux this can be 'iptables' (default), "
        + "'nftables' or 'ipvs' (deprecated upstream since v1.35). "
        + "This parameter is ignored if a config file is specified by --config."));
    f.add(field("iptables.masqueradeBit",
        "iptables-masquerade-bit", INT32, "In iptables mode, the bit of the fwmark space to mark "
        + "packets requiring SNAT with. Must be within the range [0, 31]."));
    f.add(def("masquerade-all", BOOL, "false", "SNAT all traffic sent via Service cluster IPs. This may be "
        + "required with some CNI plugins."));
    f.add(field("iptables.localhostNodePorts",
        "iptables-localhost-nodeports", BOOL, "If false, kube-proxy disables the legacy behavior of "
        + "allowing NodePort services to be accessed via localhost (iptables mode and IPv4 only)."));
    f.add(def("iptables-sync-period", DURATION, SYNC_PERIOD, "An interval (e.g. '5s', '1m', '2h22m') indicating how "
        + "frequently various re-synchronizing and cleanup operations are performed. Must be greater than 0."));
    f.add(def("iptables-min-sync-period", DURATION, MIN_SYNC_PERIOD, "The minimum period between rule resyncs (e.g. '5s', "
        + "'1m', '2h22m'). A value of 0 means every Service or EndpointSlice change results in an immediate "
        + "resync."));
    f.add(def("ipvs-sync-period", DURATION, SYNC_PERIOD, "ipvs mode: the maximum interval of how often rules are "
        + "refreshed. Must be greater than 0."));
    f.add(def("ipvs-min-sync-period", DURATION, MIN_SYNC_PERIOD, "ipvs mode: the minimum period between rule resyncs."));
    f.add(field("ipvs.scheduler",
        "ipvs-scheduler", STRING, "ipvs mode: the ipvs scheduler type."));
    f.add(field("ipvs.excludeCIDRs",
        "ipvs-exclude-cidrs", STRINGS, "A comma-separated list of CIDRs which the ipvs proxier "
        + "should not touch when cleaning up IPVS rules."));
    f.add(field("ipvs.strictARP",
        "ipvs-strict-arp", BOOL, "ipvs mode: enable strict ARP by setting arp_ignore to 1 and "
        + "arp_announce to 2."));
    f.add(field("ipvs.tcpTimeout",
        "ipvs-tcp-timeout", DURATION, "ipvs mode: the timeout for idle IPVS TCP connections, 0 to "
        + "leave as-is (e.g. '5s', '1m', '2h22m')."));
    f.add(field("ipvs.tcpFinTimeout",
        "ipvs-tcpfin-timeout", DURATION, "ipvs mode: the timeout for IPVS TCP connections after "
        + "receiving a FIN packet, 0 to leave as-is."));
    f.add(field("ipvs.udpTimeout",
        "ipvs-udp-timeout", DURATION, "ipvs mode: the timeout for IPVS UDP packets, 0 to leave "
        + "as-is."));
    f.add(field("detectLocalMode",
        "detect-local-mode", LOCAL_MODE, "Mode to use to detect local traffic: ClusterCIDR (default), "
        + "NodeCIDR, BridgeInterface or InterfaceNamePrefix. This parameter is ignored if a config file is "
        + "specified by --config."));
    f.add(field("detectLocal.bridgeInterface",
        "pod-bridge-interface", STRING, "A bridge interface name. When --detect-local-mode is "
        + "BridgeInterface, traffic from this bridge is local."));
    f.add(field("detectLocal.interfaceNamePrefix",
        "pod-interface-name-prefix", STRING, "An interface name prefix. When --detect-local-mode is "
        + "InterfaceNamePrefix, traffic from interfaces with this prefix is local."));
    f.add(field("clusterCIDR",
        "cluster-cidr", STRING, "The CIDR range of the pods in the cluster (for dual-stack, a "
        + "comma-separated pair of CIDRs, one per family). Used with --detect-local-mode=ClusterCIDR to tell "
        + "local traffic from external traffic."));
    f.add(field("nodePortAddresses",
        "nodeport-addresses", STRINGS, "A list of CIDR ranges that contain valid node IPs; the "
        + "keywords 'primary' (the node's primary IPs), 'localhost' (the loopback addresses) and 'all' may stand "
        + "with each other and with CIDRs. NodePort connections are only accepted on node IPs in these ranges "
        + "(comma-separated, repeatable). In nftables mode, with the KubeProxyNFTablesLocalhostNodePorts feature "
        + "gate, a loopback range serves TCP NodePorts on localhost. If unset, NodePorts are accepted on all "
        + "local IPs."));
    f.add(field("oomScoreAdj",
        "oom-score-adj", INT32, "The oom-score-adj value for the kube-proxy process. Values must be "
        + "within the range [-1000, 1000]."));
    f.add(field("conntrack.maxPerCore",
        "conntrack-max-per-core", INT32, "Maximum number of NAT connections to track per CPU core "
        + "(0 to leave the limit as-is and ignore conntrack-min)."));
    f.add(field("conntrack.min",
        "conntrack-min", INT32, "Minimum number of conntrack entries to allocate, regardless of "
        + "conntrack-max-per-core (set conntrack-max-per-core=0 to leave the limit as-is)."));
    f.add(field("conntrack.tcpEstablishedTimeout",
        "conntrack-tcp-timeout-established", DURATION, "Idle timeout for established TCP "
        + "connections (0 to leave as-is)."));
    f.add(field("conntrack.tcpCloseWaitTimeout",
        "conntrack-tcp-timeout-close-wait", DURATION, "NAT timeout for TCP connections in the "
        + "CLOSE_WAIT state (0 to leave as-is)."));
    f.add(field("conntrack.tcpBeLiberal",
        "conntrack-tcp-be-liberal", BOOL, "Enable liberal mode for tracking TCP packets by setting "
        + "nf_conntrack_tcp_be_liberal to 1."));
    f.add(field("conntrack.udpTimeout",
        "conntrack-udp-timeout", DURATION, "Idle timeout for UNREPLIED UDP connections (0 to leave "
        + "as-is)."));
    f.add(field("conntrack.udpStreamTimeout",
        "conntrack-udp-timeout-stream", DURATION, "Idle timeout for ASSURED UDP connections (0 to "
        + "leave as-is)."));
    f.add(field("configSyncPeriod",
        "config-sync-period", DURATION, "How often configuration from the API server is "
        + "refreshed. Must be greater than 0."));
    f.add(new FlagDef("healthz-port", null, INT32, String.valueOf(ConfigDefaults.HEALTHZ_PORT), "The port to bind the health check server. Use 0 to "
        + "disable.", String.format(DEPRECATED_PORT, "healthz-bind-address")));
    f.add(new FlagDef("metrics-port", null, INT32, String.valueOf(ConfigDefaults.METRICS_PORT), "The port to bind the metrics server. Use 0 to "
        + "disable.", String.format(DEPRECATED_PORT, "metrics-bind-address")));
    f.add(new FlagDef("proxy-port-range", null, STRING, "", "Range of host ports (beginPort-endPort, single port "
        + "or beginPort+offset, inclusive) that may be consumed in order to proxy service traffic.",
        "This flag has no effect and will be removed in a future release."));
    // logging (component-base)
    f.add(field("logging.format",
        "logging-format", STRING, "Sets the log format. Permitted formats: \"json\", \"text\"."));
    f.add(field("logging.flushFrequency",
        "log-flush-frequency", DURATION, "Maximum number of seconds between log flushes."));
    f.add(new FlagDef("v", "v", LEVEL, "0", "number for the log level verbosity", null, "logging.verbosity"));
    f.add(def("vmodule", VMODULE, "", "comma-separated list of pattern=N settings for file-filtered logging "
        + "(only works for text log format); a pattern is a source file name without .java, or a class path "
        + "such as dev/kubeproxy/backend/*"));
    f.add(field("logging.options.text.splitStream",
        "log-text-split-stream", BOOL, "[Alpha] In text format, write error messages to stderr "
        + "and info messages to stdout. Enable the LoggingAlphaOptions feature gate to use this."));
    f.add(field("logging.options.text.infoBufferSize",
        "log-text-info-buffer-size", QUANTITY, "[Alpha] In text format with split output streams, the "
        + "info messages can be buffered for a while to increase performance. Enable the LoggingAlphaOptions "
        + "feature gate to use this."));
    f.add(field("logging.options.json.splitStream",
        "log-json-split-stream", BOOL, "[Beta] In JSON format, write error messages to stderr and "
        + "info messages to stdout."));
    f.add(field("logging.options.json.infoBufferSize",
        "log-json-info-buffer-size", QUANTITY, "[Beta] In JSON format with split output streams, the "
        + "info messages can be buffered for a while to increase performance."));
    // global flags kept for compatibility (cAdvisor's)
    f.add(def("boot-id-file", STRING, "/proc/sys/kernel/random/boot_id", "Comma-separated list of files to check "
        + "for boot-id. Use the first one that exists. (Accepted for compatibility; not used.)"));
    f.add(def("machine-id-file", STRING, "/etc/machine-id,/var/lib/dbus/machine-id", "Comma-separated list of "
        + "files to check for machine-id. Use the first one that exists. (Accepted for compatibility; not used.)"));
    // this agent's own
    f.add(def("manifests", STRING, "", "Standalone mode: read Services, EndpointSlices, Nodes and ServiceCIDRs "
        + "from the YAML/JSON files in this directory instead of the Kubernetes API."));
    f.add(def("dry-run", BOOL, "false", "Print the rules each sync would apply instead of applying them; no "
        + "sysctl, OOM score or netfilter change is made."));
    f.add(new FlagDef("version", null, VERSION, "false", "--version, --version=raw prints version information "
        + "and quits; --version=vX.Y.Z... sets the reported version", null));
    f.add(new FlagDef("help", "h", BOOL, "false", "help for kube-proxy", null));
    ALL = Collections.unmodifiableList(f);
    Map<String, FlagDef> byName = new LinkedHashMap<>();
    for (FlagDef d : ALL) {
      byName.put(d.name(), d);
    }
    BY_NAME = Collections.unmodifiableMap(byName);
  }

  private static FlagDef def(String name, FlagType type, String defaultText, String usage) {
    return new FlagDef(name, null, type, defaultText, usage, null);
  }

  /**
   * A flag that sets one configuration field, named by its v1alpha1 path; its default is that
   * field's v1alpha1 default, read from the schema.
   */
  private static FlagDef field(String field, String name, FlagType type, String usage) {
    return new FlagDef(name, null, type, null, usage, null, field);
  }

  public static FlagDef get(String name) {
    FlagDef d = BY_NAME.get(name);
    if (d == null) {
      throw new IllegalArgumentException("no flag " + name);
    }
    return d;
  }

  public static boolean exists(String name) {
    return BY_NAME.containsKey(name);
  }
}
