package dev.kubeproxy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.config.ConfigCodec;
import dev.kubeproxy.config.ConfigFileLoader;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.testutil.Await;
import dev.kubeproxy.testutil.VertxPerClass;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Future;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Complete: flags, file, platform defaults and their precedence (server.md §4). */
@Unit
class KubeProxyOptionsTest {
  @TempDir
  Path dir;

  @RegisterExtension
  static final VertxPerClass VERTX = new VertxPerClass();

  /** Complete as Startup runs it: the --config file read through vertx-config. */
  private static KubeProxyOptions complete(String... args) throws Exception {
    ParsedFlags f = FlagParser.parse(List.of(args));
    String file = f.getString("config");
    Future<ConfigCodec.Decoded> read = file.isEmpty() ? Future.succeededFuture() : ConfigFileLoader.load(VERTX.get(), file);
    Await.completion(read);
    return KubeProxyOptions.complete(f, read);
  }

  private String file(String body) throws Exception {
    Path f = dir.resolve("config.yaml");
    Files.writeString(f, "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n" + body);
    return f.toString();
  }

  @Test
  void flagsOnlyPlatformDefaults() throws Exception {
    KubeProxyConfiguration c = complete().config();
    assertEquals("iptables", c.mode);
    assertEquals("ClusterCIDR", c.detectLocalMode);
    assertNull(c.nodePortAddresses);
    assertEquals(Duration.ofSeconds(30), c.syncPeriod());
    assertEquals(Duration.ofSeconds(1), c.minSyncPeriod());
  }

  @Test
  void nftablesDefaultsNodePortAddressesToPrimary() throws Exception {
    KubeProxyConfiguration c = complete("--proxy-mode=nftables", "--masquerade-all").config();
    assertEquals(List.of("primary"), c.nodePortAddresses);
    assertTrue(c.masqueradeAll());
    assertTrue(c.nftables.masqueradeAll);
    assertFalse(c.iptables.masqueradeAll);
  }

  @Test
  void syncPeriodFlagsFollowTheRawMode() throws Exception {
    KubeProxyConfiguration ipt = complete("--iptables-sync-period=10s", "--ipvs-sync-period=20s").config();
    assertEquals(Duration.ofSeconds(10), ipt.syncPeriod());
    KubeProxyConfiguration nft = complete("--proxy-mode=nftables", "--iptables-min-sync-period=2s").config();
    assertEquals(Duration.ofSeconds(2), nft.minSyncPeriod());
    KubeProxyConfiguration ipvs = complete("--proxy-mode=ipvs", "--iptables-sync-period=10s", "--ipvs-sync-period=20s")
        .config();
    assertEquals(Duration.ofSeconds(20), ipvs.syncPeriod());
    assertEquals(Duration.ofSeconds(1), ipvs.minSyncPeriod(), "flags-only ipvs keeps the iptables default 1s");
  }

  /**
   * The --ipvs-* flags land in the fields upstream v1.31 validates (validation.go validateIPVSTimeout,
   * validateIPVSExcludeCIDRs). v1.31 validates no scheduler name: an unknown scheduler passes here and
   * fails at start, in CanUseIPVSProxier's probe virtual server (IpvsSupport).
   */
  @Test
  void ipvsFlagsMapToTheValidatedFields() throws Exception {
    KubeProxyConfiguration c = complete("--proxy-mode=ipvs", "--ipvs-scheduler=nosuch", "--ipvs-strict-arp",
        "--ipvs-tcp-timeout=-1s", "--ipvs-tcpfin-timeout=5s", "--ipvs-udp-timeout=-3s",
        "--ipvs-exclude-cidrs=10.0.0.0/8,bad").config();
    assertEquals("nosuch", c.ipvs.scheduler);
    assertTrue(c.ipvs.strictARP);
    assertEquals(Duration.ofSeconds(5), c.ipvs.tcpFinTimeout);
    assertEquals(List.of(
        "KubeProxyConfiguration.KubeProxyIPVSConfiguration.TCPTimeout: Invalid value: -1s: must be greater than or equal to 0",
        "KubeProxyConfiguration.KubeProxyIPVSConfiguration.UDPTimeout: Invalid value: -3s: must be greater than or equal to 0",
        "KubeProxyConfiguration.KubeProxyIPVSConfiguration.ExcludeCidrs[1]: Invalid value: \"bad\": must be a valid CIDR"),
        dev.kubeproxy.config.ConfigValidation.validate(c));
    // the same values outside ipvs mode are not checked, as upstream's Validate switches on the mode
    KubeProxyConfiguration ipt = complete("--ipvs-tcp-timeout=-1s", "--ipvs-exclude-cidrs=bad").config();
    assertEquals(List.of(), dev.kubeproxy.config.ConfigValidation.validate(ipt));
  }

  @Test
  void fileWinsOverFlagsExceptHostnameAndExplicitLoggingFlags() throws Exception {
    String f = file("mode: nftables\nbindAddress: 10.0.0.1\nhostnameOverride: from-file\nlogging:\n  verbosity: 1\n"
        + "  vmodule:\n  - filePattern: FromFile\n    verbosity: 3\n");
    KubeProxyOptions o = complete("--config", f, "--bind-address=10.9.9.9", "--proxy-mode=iptables",
        "--hostname-override=  Node-A ", "--v=4", "--vmodule=Flag=5", "--masquerade-all");
    KubeProxyConfiguration c = o.config();
    assertEquals("nftables", c.mode);
    assertEquals("10.0.0.1", c.bindAddress);
    assertEquals("node-a", c.hostnameOverride, "trimmed and lower-cased");
    assertEquals(4, c.logging.verbosity);
    assertEquals("Flag", c.logging.vmodule.get(0).filePattern, "command-line entries first");
    assertEquals("FromFile", c.logging.vmodule.get(1).filePattern);
    assertFalse(c.masqueradeAll(), "--masquerade-all is ignored with --config");
    assertEquals(f, o.configFile());
  }

  @Test
  void loggingFlagsNotGivenLeaveTheFileAlone() throws Exception {
    KubeProxyConfiguration c = complete("--config", file("logging:\n  verbosity: 3\n  format: json\n")).config();
    assertEquals(3, c.logging.verbosity);
    assertEquals("json", c.logging.format);
  }

  @Test
  void fileFeatureGatesReplaceTheFlag() throws Exception {
    KubeProxyOptions o = complete("--config", file("featureGates:\n  MultiCIDRServiceAllocator: true\n"),
        "--feature-gates=Foo=true");
    assertTrue(o.gates().isEnabled("MultiCIDRServiceAllocator"));
  }

  @Test
  void unknownFeatureGateFailsComplete() {
    assertEquals("unrecognized feature gate: Foo", assertThrows(CompleteException.class,
        () -> complete("--feature-gates=Foo=true")).getMessage());
  }

  @Test
  void emptyHostnameOverride() {
    assertEquals("empty hostname-override is invalid", assertThrows(CompleteException.class,
        () -> complete("--hostname-override=   ")).getMessage());
  }

  @Test
  void deprecatedPortsOnlyWithoutConfigAndWriteConfigTo() throws Exception {
    assertEquals("", complete("--healthz-port=0").config().healthzBindAddress, "port 0 disables healthz");
    assertEquals("10.0.0.5:1234", complete("--healthz-bind-address=10.0.0.5", "--healthz-port=1234").config()
        .healthzBindAddress);
    assertEquals("127.0.0.1:10249", complete("--metrics-port=1234").config().metricsBindAddress,
        "an ip:port address keeps its port, as upstream");
    assertEquals("10.0.0.5", complete("--healthz-bind-address=10.0.0.5", "--write-config-to=/x").config()
        .healthzBindAddress, "with --write-config-to the bare IP stays (and fails validation)");
    assertEquals("0.0.0.0:10256", complete("--config", file(""), "--healthz-port=0").config().healthzBindAddress);
  }

  @Test
  void clusterCidrFlag() throws Exception {
    assertEquals(List.of("10.244.0.0/16", "fd00:10:244::/64"),
        complete("--cluster-cidr=10.244.0.0/16,fd00:10:244::/64").config().clusterCIDRs());
  }

  @Test
  void configFileErrors() throws Exception {
    assertEquals("open /no/such/file.yaml: no such file or directory",
        assertThrows(CompleteException.class, () -> complete("--config=/no/such/file.yaml")).getMessage());
    String f = file("mode: [\n");
    assertTrue(assertThrows(CompleteException.class, () -> complete("--config", f)).getMessage()
        .startsWith("failed to decode: " + f + ":"));
  }

  @Test
  void endlessOrHugeConfigFilesAreRefusedWithoutReadingThemWhole() throws Exception {
    String tooLarge = "the file is larger than 1048576 bytes, too large for a KubeProxyConfiguration; check that "
        + "--config names the configuration file";
    assertEquals("read /dev/zero: " + tooLarge,
        assertThrows(CompleteException.class, () -> complete("--config=/dev/zero")).getMessage());
    // one 50 MB line: refused at once instead of minutes in the YAML scanner
    String f = file("hostnameOverride: " + "x".repeat(50 << 20) + "\n");
    assertEquals("read " + f + ": " + tooLarge,
        assertThrows(CompleteException.class, () -> complete("--config", f)).getMessage());
    // a real file just under the bound still loads
    String big = file("hostnameOverride: node-1\n" + ("# " + "c".repeat(1021) + "\n").repeat(1000));
    assertEquals("node-1", complete("--config", big).config().hostnameOverride);
  }

  @Test
  void everyConfigurationFlagNamesAFieldOfTheSchema() throws Exception {
    KubeProxyConfiguration c = dev.kubeproxy.config.ConfigDefaults.defaulted();
    // fields left out of the output at their zero value
    c.featureGates.put("AllAlpha", false);
    c.logging.options.text.splitStream = true;
    c.logging.options.json.splitStream = true;
    com.fasterxml.jackson.databind.JsonNode doc = dev.kubeproxy.config.ConfigCodec.toV1Alpha1(c);
    int bound = 0;
    for (FlagDef def : KubeProxyFlags.ALL) {
      if (def.field() != null) {
        bound++;
        com.fasterxml.jackson.databind.JsonNode n = doc;
        for (String name : def.field().split("\\.")) {
          n = n.path(name);
        }
        assertFalse(n.isMissingNode(), def.name() + " -> " + def.field());
      }
    }
    assertEquals(42, bound);
    assertThrows(IllegalArgumentException.class,
        () -> dev.kubeproxy.config.ConfigCodec.setFields(c, java.util.Map.of("iptables.noSuchField", 1)));
  }

  @Test
  void lenientDecodingContinues() throws Exception {
    assertEquals("nftables", complete("--config", file("mode: nftables\nnoSuchField: 1\n")).config().mode);
  }

  @Test
  void optionsOutsideTheConfiguration() throws Exception {
    KubeProxyOptions o = complete("--master=https://10.0.0.1:6443", "--cleanup", "--init-only", "--manifests=/m",
        "--dry-run");
    assertEquals("https://10.0.0.1:6443", o.master());
    assertTrue(o.cleanup());
    assertTrue(o.initOnly());
    assertEquals("/m", o.manifestsDir());
    assertTrue(o.dryRun());
  }
}
