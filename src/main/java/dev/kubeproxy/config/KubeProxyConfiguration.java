package dev.kubeproxy.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The kubeproxy.config.k8s.io/v1alpha1 KubeProxyConfiguration, field for field
 * (staging/src/k8s.io/kube-proxy/config/v1alpha1/types.go).
 *
 * <p>Boxed fields are upstream's pointer fields: null means "unset, take the default", and an explicit zero
 * or false is kept. Durations are Go durations on the wire; the codec converts. Mode-dependent values (sync
 * periods, masqueradeAll, masquerade bit) are read through the accessors at the bottom, which apply
 * upstream's v1alpha1-to-internal conversion (pkg/proxy/apis/config/v1alpha1/conversion.go
 * Convert_v1alpha1_KubeProxyConfiguration_To_config_KubeProxyConfiguration).
 *
 * <p>This class is the schema: {@link ConfigSchema} binds the file to it and writes it back with
 * Jackson, field name = JSON key. The annotations say what Go's types and {@code omitempty} tags say
 * upstream (staging/src/k8s.io/kube-proxy/config/v1alpha1/types.go); every Duration is a Go duration.
 */
public class KubeProxyConfiguration {
  public static final String API_VERSION = "kubeproxy.config.k8s.io/v1alpha1";
  public static final String KIND = "KubeProxyConfiguration";

  public String apiVersion = API_VERSION;
  public String kind = KIND;

  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public Map<String, Boolean> featureGates = new TreeMap<>();
  public ClientConnection clientConnection = new ClientConnection();
  public Logging logging = new Logging();
  public String hostnameOverride = "";
  public String bindAddress = "";
  public String healthzBindAddress = "";
  public String metricsBindAddress = "";
  public boolean bindAddressHardFail;
  public boolean enableProfiling;
  public String showHiddenMetricsForVersion = "";
  public String mode = "";
  public IPTables iptables = new IPTables();
  public IPVS ipvs = new IPVS();
  public NFTables nftables = new NFTables();
  public WinKernel winkernel = new WinKernel();
  public String detectLocalMode = "";
  public DetectLocal detectLocal = new DetectLocal();
  public String clusterCIDR = "";
  public List<String> nodePortAddresses;
  public Integer oomScoreAdj;
  public Conntrack conntrack = new Conntrack();
  public Duration configSyncPeriod = Duration.ZERO;
  public String portRange = "";
  @JsonInclude(JsonInclude.Include.NON_DEFAULT)
  public boolean windowsRunAsService;

  public static class ClientConnection {
    public String kubeconfig = "";
    public String acceptContentTypes = "";
    public String contentType = "";
    @JsonSerialize(using = GoValues.Float32Serializer.class)
    public float qps;
    public int burst;
  }

  public static class Logging {
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    public String format = "";
    @JsonDeserialize(using = GoValues.DurationOrNanosDeserializer.class)
    public Duration flushFrequency = Duration.ZERO;
    @JsonDeserialize(using = GoValues.UInt32Deserializer.class)
    public int verbosity;
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    public List<VModuleItem> vmodule = new ArrayList<>();
    public LoggingOptions options = new LoggingOptions();
  }

  public static class VModuleItem {
    public String filePattern = "";
    @JsonDeserialize(using = GoValues.UInt32Deserializer.class)
    public int verbosity;

    public VModuleItem() {}

    public VModuleItem(String filePattern, int verbosity) {
      this.filePattern = filePattern;
      this.verbosity = verbosity;
    }
  }

  public static class LoggingOptions {
    public StreamOptions text = new StreamOptions();
    public StreamOptions json = new StreamOptions();
  }

  public static class StreamOptions {
    @JsonInclude(JsonInclude.Include.NON_DEFAULT)
    public boolean splitStream;
    @JsonDeserialize(using = GoValues.QuantityDeserializer.class)
    public String infoBufferSize = "0";
  }

  public static class IPTables {
    public Integer masqueradeBit;
    public boolean masqueradeAll;
    public Boolean localhostNodePorts;
    public Duration syncPeriod = Duration.ZERO;
    public Duration minSyncPeriod = Duration.ZERO;
  }

  public static class IPVS {
    public Duration syncPeriod = Duration.ZERO;
    public Duration minSyncPeriod = Duration.ZERO;
    public String scheduler = "";
    public List<String> excludeCIDRs;
    public boolean strictARP;
    public Duration tcpTimeout = Duration.ZERO;
    public Duration tcpFinTimeout = Duration.ZERO;
    public Duration udpTimeout = Duration.ZERO;
  }

  public static class NFTables {
    public Integer masqueradeBit;
    public boolean masqueradeAll;
    public Duration syncPeriod = Duration.ZERO;
    public Duration minSyncPeriod = Duration.ZERO;
  }

  public static class WinKernel {
    public String networkName = "";
    public String sourceVip = "";
    public boolean enableDSR;
    public String rootHnsEndpointName = "";
    public boolean forwardHealthCheckVip;
  }

  public static class DetectLocal {
    public String bridgeInterface = "";
    public String interfaceNamePrefix = "";
  }

  public static class Conntrack {
    public Integer maxPerCore;
    public Integer min;
    public Duration tcpEstablishedTimeout;
    public Duration tcpCloseWaitTimeout;
    public boolean tcpBeLiberal;
    public Duration udpTimeout = Duration.ZERO;
    public Duration udpStreamTimeout = Duration.ZERO;
  }

  // ---- upstream's internal view (pkg/proxy/apis/config/v1alpha1 conversion.go) ----

  /**
   * The proxy mode; "" reads as iptables (cmd/kube-proxy/app/server_linux.go platformApplyDefaults).
   *
   * @throws IllegalStateException for a spelling that validation rejects
   */
  public ProxyMode proxyMode() {
    return ProxyMode.parse(mode).orElseThrow(() -> new IllegalStateException("unknown proxy mode \"" + mode
        + "\" (validation rejects it)"));
  }

  /** The mode whose section the internal values come from: an unknown spelling reads iptables' section. */
  private ProxyMode section() {
    return ProxyMode.parse(mode).orElse(ProxyMode.IPTABLES);
  }

  public Duration syncPeriod() {
    return switch (section()) {
      case IPVS -> ipvs.syncPeriod;
      case NFTABLES -> nftables.syncPeriod;
      case IPTABLES -> iptables.syncPeriod;
    };
  }

  public Duration minSyncPeriod() {
    return switch (section()) {
      case IPVS -> ipvs.minSyncPeriod;
      case NFTABLES -> nftables.minSyncPeriod;
      case IPTABLES -> iptables.minSyncPeriod;
    };
  }

  /** The mode's sync timing, resolved once for the proxy layer. */
  public SyncSettings syncSettings() {
    return SyncSettings.of(proxyMode(), syncPeriod(), minSyncPeriod());
  }

  public boolean masqueradeAll() {
    return section() == ProxyMode.NFTABLES ? nftables.masqueradeAll : iptables.masqueradeAll;
  }

  /** iptables and ipvs use iptables.masqueradeBit; nftables its own. */
  public int masqueradeBit() {
    Integer bit = section() == ProxyMode.NFTABLES ? nftables.masqueradeBit : iptables.masqueradeBit;
    return bit == null ? ConfigDefaults.MASQUERADE_BIT : bit;
  }

  /** clusterCIDR split on commas (no trimming), empty when unset. */
  public List<String> clusterCIDRs() {
    return clusterCIDR == null || clusterCIDR.isEmpty() ? List.of() : List.of(clusterCIDR.split(",", -1));
  }
}
