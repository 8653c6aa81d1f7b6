package dev.kubeproxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

@Unit
class ConfigCodecTest {
  private static final String HEAD = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n";

  private static ConfigCodec.Decoded decode(String text) throws ConfigDecodeException {
    return ConfigCodec.decode("f.yaml", text.getBytes(StandardCharsets.UTF_8));
  }

  private static String failure(String text) {
    return assertThrows(ConfigDecodeException.class, () -> decode(text)).getMessage();
  }

  @Test
  void minimalFileGetsEveryDefault() throws Exception {
    ConfigCodec.Decoded d = decode(HEAD);
    assertTrue(d.strict());
    KubeProxyConfiguration c = d.config();
    assertEquals("0.0.0.0", c.bindAddress);
    assertEquals("0.0.0.0:10256", c.healthzBindAddress);
    assertEquals("127.0.0.1:10249", c.metricsBindAddress);
    assertEquals(-999, c.oomScoreAdj);
    assertEquals(Duration.ofSeconds(30), c.iptables.syncPeriod);
    assertEquals(Duration.ofSeconds(1), c.iptables.minSyncPeriod);
    assertEquals(Duration.ofSeconds(30), c.ipvs.syncPeriod);
    assertEquals(Duration.ZERO, c.ipvs.minSyncPeriod);
    assertEquals(Duration.ofSeconds(30), c.nftables.syncPeriod);
    assertEquals(Duration.ofSeconds(1), c.nftables.minSyncPeriod);
    assertEquals(14, c.iptables.masqueradeBit);
    assertEquals(14, c.nftables.masqueradeBit);
    assertEquals(Boolean.TRUE, c.iptables.localhostNodePorts);
    assertEquals(32768, c.conntrack.maxPerCore);
    assertEquals(131072, c.conntrack.min);
    assertEquals(Duration.ofHours(24), c.conntrack.tcpEstablishedTimeout);
    assertEquals(Duration.ofHours(1), c.conntrack.tcpCloseWaitTimeout);
    assertEquals(Duration.ofMinutes(15), c.configSyncPeriod);
    assertEquals("application/vnd.kubernetes.protobuf", c.clientConnection.contentType);
    assertEquals(5.0f, c.clientConnection.qps);
    assertEquals(10, c.clientConnection.burst);
    assertEquals("text", c.logging.format);
    assertEquals(Duration.ofSeconds(5), c.logging.flushFrequency);
    assertNull(c.nodePortAddresses);
    assertEquals("", c.mode);
  }

  @Test
  void ipv6BindAddressChangesTheDefaultServerAddresses() throws Exception {
    KubeProxyConfiguration c = decode(HEAD + "bindAddress: \"::1\"\n").config();
    assertEquals("[::]:10256", c.healthzBindAddress);
    assertEquals("[::1]:10249", c.metricsBindAddress);
  }

  @Test
  void bareIpGetsTheDefaultPort() throws Exception {
    KubeProxyConfiguration c = decode(HEAD + "healthzBindAddress: 10.0.0.1\nmetricsBindAddress: \"::\"\n").config();
    assertEquals("10.0.0.1:10256", c.healthzBindAddress);
    assertEquals("[::]:10249", c.metricsBindAddress);
  }

  @Test
  void zeroMeansUnsetButPointersKeepZero() throws Exception {
    KubeProxyConfiguration c = decode(HEAD + "iptables:\n  syncPeriod: 0s\n  masqueradeBit: 0\n  localhostNodePorts: false\n"
        + "oomScoreAdj: 0\nconntrack:\n  maxPerCore: 0\n  tcpEstablishedTimeout: 0s\nclientConnection:\n  qps: 0\n"
        + "nftables:\n  masqueradeBit: null\n").config();
    assertEquals(Duration.ofSeconds(30), c.iptables.syncPeriod);
    assertEquals(0, c.iptables.masqueradeBit);
    assertFalse(c.iptables.localhostNodePorts);
    assertEquals(0, c.oomScoreAdj);
    assertEquals(0, c.conntrack.maxPerCore);
    assertEquals(Duration.ZERO, c.conntrack.tcpEstablishedTimeout);
    assertEquals(5.0f, c.clientConnection.qps);
    assertEquals(14, c.nftables.masqueradeBit);
  }

  @Test
  void jsonIsAccepted() throws Exception {
    ConfigCodec.Decoded d = ConfigCodec.decode("f.json", ("{\"apiVersion\":\"kubeproxy.config.k8s.io/v1alpha1\","
        + "\"kind\":\"KubeProxyConfiguration\",\"mode\":\"nftables\",\"nodePortAddresses\":[\"primary\"],"
        + "\"featureGates\":{\"MultiCIDRServiceAllocator\":true}}").getBytes(StandardCharsets.UTF_8));
    assertTrue(d.strict());
    assertEquals("nftables", d.config().mode);
    assertEquals(List.of("primary"), d.config().nodePortAddresses);
    assertEquals(Boolean.TRUE, d.config().featureGates.get("MultiCIDRServiceAllocator"));
  }

  @Test
  void flushFrequencyAcceptsNanoseconds() throws Exception {
    assertEquals(Duration.ofSeconds(2), decode(HEAD + "logging:\n  flushFrequency: 2000000000\n").config().logging.flushFrequency);
    assertEquals(Duration.ofSeconds(3), decode(HEAD + "logging:\n  flushFrequency: 3s\n").config().logging.flushFrequency);
  }

  @Test
  void unknownFieldsAreStrictErrorsAndDroppedLeniently() throws Exception {
    ConfigCodec.Decoded d = decode(HEAD + "mode: nftables\nfoo: 1\niptables:\n  bar: true\nlogging:\n  vmodule:\n"
        + "  - filePattern: x\n    verbosity: 2\n    extra: 1\nBindAddress: 1.2.3.4\n");
    assertEquals("strict decoding error: unknown field \"foo\", unknown field \"iptables.bar\", "
        + "unknown field \"logging.vmodule[0].extra\", unknown field \"BindAddress\"", d.strictError());
    assertEquals("nftables", d.config().mode);
    assertEquals("0.0.0.0", d.config().bindAddress, "field names are case-sensitive");
    assertEquals(1, d.config().logging.vmodule.size());
  }

  @Test
  void duplicateKeysAreStrictErrorsAndTheLastWins() throws Exception {
    ConfigCodec.Decoded d = decode(HEAD + "mode: iptables\nmode: nftables\n");
    assertEquals("strict decoding error: line 4: key \"mode\" already set in map", d.strictError());
    assertEquals("nftables", d.config().mode);
    ConfigCodec.Decoded j = ConfigCodec.decode("f.json", ("{\"apiVersion\":\"kubeproxy.config.k8s.io/v1alpha1\","
        + "\"kind\":\"KubeProxyConfiguration\",\"mode\":\"a\",\"mode\":\"b\"}").getBytes(StandardCharsets.UTF_8));
    assertEquals("strict decoding error: duplicate field \"mode\"", j.strictError());
  }

  @Test
  void malformedYamlNamesFileAndPosition() {
    String msg = failure(HEAD + "mode: [iptables\nfoo: bar: baz\n");
    assertTrue(msg.startsWith("f.yaml:4:"), msg);
    assertTrue(msg.contains("yaml: "), msg);
    assertTrue(!msg.contains("\n"), "one line: " + msg);
  }

  @Test
  void malformedJsonNamesFileAndPosition() {
    String msg = assertThrows(ConfigDecodeException.class, () -> ConfigCodec.decode("f.json",
        "{\"apiVersion\": \"x\",\n \"kind\": }".getBytes(StandardCharsets.UTF_8))).getMessage();
    assertTrue(msg.startsWith("f.json:2:"), msg);
  }

  @Test
  void wrongApiVersionOrKind() {
    assertEquals("f.yaml:1:13: no kind \"KubeProxyConfiguration\" is registered for version "
        + "\"kubeproxy.config.k8s.io/v1alpha2\"; expected apiVersion: kubeproxy.config.k8s.io/v1alpha1, kind: "
        + "KubeProxyConfiguration",
        failure("apiVersion: kubeproxy.config.k8s.io/v1alpha2\nkind: KubeProxyConfiguration\n"));
    assertEquals("f.yaml:2:7: no kind \"KubeletConfiguration\" is registered for version "
        + "\"kubeproxy.config.k8s.io/v1alpha1\"; expected apiVersion: kubeproxy.config.k8s.io/v1alpha1, kind: "
        + "KubeProxyConfiguration",
        failure("apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeletConfiguration\n"));
    assertTrue(failure("apiVersion: kubeproxy.config.k8s.io/v1alpha1\n").contains("Object 'Kind' is missing"));
    assertTrue(failure("kind: KubeProxyConfiguration\n").contains("Object 'apiVersion' is missing"));
    assertTrue(failure("").contains("empty"));
    assertTrue(failure("- a\n- b\n").contains("expected a mapping"));
  }

  @Test
  void wrongValueTypesAreFatalWithPosition() {
    assertEquals("f.yaml:4:10: json: cannot unmarshal string into Go struct field "
        + "KubeProxyConfiguration.clientConnection.burst of type int32",
        failure(HEAD + "clientConnection:\n  burst: ten\n"));
    assertEquals("f.yaml:3:24: field iptables.syncPeriod: time: unknown unit \"x\" in duration \"5x\"",
        failure(HEAD + "iptables: {syncPeriod: 5x}\n"));
    assertEquals("f.yaml:3:19: json: cannot unmarshal number into Go struct field "
        + "KubeProxyConfiguration.configSyncPeriod of type duration (a string such as \"30s\")",
        failure(HEAD + "configSyncPeriod: 30\n"));
    assertEquals("f.yaml:3:14: json: cannot unmarshal number into Go struct field "
        + "KubeProxyConfiguration.bindAddress of type string", failure(HEAD + "bindAddress: 1\n"));
    assertEquals("f.yaml:3:18: json: cannot unmarshal string into Go struct field "
        + "KubeProxyConfiguration.enableProfiling of type bool", failure(HEAD + "enableProfiling: \"yes\"\n"));
  }

  @Test
  void onlyTheFirstYamlDocumentCounts() throws Exception {
    assertEquals("nftables", decode("---\n" + HEAD + "mode: nftables\n---\nmode: [unparsed\n").config().mode);
    assertEquals("nftables", decode(HEAD + "mode: nftables\n---\n").config().mode);
  }

  @Test
  void aliasesAreResolvedAsGoYamlDoes() throws Exception {
    ConfigCodec.Decoded d = decode(HEAD + "hostnameOverride: &h node-1\nclientConnection:\n  kubeconfig: *h\n"
        + "iptables: &sync\n  syncPeriod: 10s\n  minSyncPeriod: 2s\nnftables: *sync\n"
        + "nodePortAddresses: &cidrs [10.0.0.0/8, fd00::/64]\nipvs:\n  excludeCIDRs: *cidrs\n");
    assertTrue(d.strict(), d.strictErrors().toString());
    KubeProxyConfiguration c = d.config();
    assertEquals("node-1", c.clientConnection.kubeconfig, "the alias reads as its anchor's value, not its name");
    assertEquals(Duration.ofSeconds(10), c.nftables.syncPeriod);
    assertEquals(Duration.ofSeconds(2), c.nftables.minSyncPeriod);
    assertEquals(List.of("10.0.0.0/8", "fd00::/64"), c.ipvs.excludeCIDRs);
  }

  @Test
  void mergeKeysCopyTheAnchoredMapping() throws Exception {
    ConfigCodec.Decoded d = decode(HEAD + "iptables: &base\n  syncPeriod: 10s\n  minSyncPeriod: 2s\n"
        + "nftables:\n  <<: *base\n  masqueradeAll: true\n");
    assertTrue(d.strict(), d.strictErrors().toString());
    assertEquals(Duration.ofSeconds(10), d.config().nftables.syncPeriod);
    assertTrue(d.config().nftables.masqueradeAll);
    // go-yaml v2 strict decoding: a key set by the merge and again by hand is a duplicate
    ConfigCodec.Decoded over = decode(HEAD + "iptables: &base\n  syncPeriod: 10s\n"
        + "nftables:\n  <<: *base\n  syncPeriod: 20s\n");
    assertEquals("strict decoding error: line 7: key \"syncPeriod\" already set in map", over.strictError());
    assertEquals(Duration.ofSeconds(20), over.config().nftables.syncPeriod);
    assertTrue(failure(HEAD + "a: &x 1\nnftables:\n  <<: *x\n")
        .endsWith("yaml: map merge requires map or sequence of maps as the value"));
  }

  @Test
  void aliasExpansionIsBounded() {
    // "billion laughs": ten aliases per level, nine levels: 10^9 strings if expanded
    StringBuilder doc = new StringBuilder(HEAD + "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (int i = 1; i <= 9; i++) {
      String prev = "*a" + (i - 1);
      doc.append("a").append(i).append(": &a").append(i).append(" [").append(String.join(", ",
          java.util.Collections.nCopies(10, prev))).append("]\n");
    }
    String msg = failure(doc.toString());
    assertTrue(msg.startsWith("f.yaml:") && msg.endsWith(": yaml: document contains excessive aliasing"), msg);
  }

  @Test
  void badAliasesAreFatal() {
    assertEquals("f.yaml:3:19: yaml: unknown anchor 'nope' referenced", failure(HEAD + "hostnameOverride: *nope\n"));
    String msg = failure(HEAD + "nodePortAddresses: &r [*r]\n");
    assertTrue(msg.endsWith("yaml: anchor 'r' value contains itself"), msg);
  }

  @Test
  void yamlScalarsAreTypedAsGoYamlTypesThem() throws Exception {
    KubeProxyConfiguration c = decode(HEAD + "enableProfiling: yes\nhostnameOverride: 2026-12-03\n"
        + "oomScoreAdj: -0x10\nclientConnection:\n  burst: 1_000\n").config();
    assertTrue(c.enableProfiling);
    assertEquals("2026-12-03", c.hostnameOverride, "a timestamp stays text");
    assertEquals(-16, c.oomScoreAdj);
    assertEquals(1000, c.clientConnection.burst);
  }

  @Test
  void noCoercionBetweenJsonTypesAsInEncodingJson() throws Exception {
    assertEquals("f.yaml:4:10: json: cannot unmarshal string into Go struct field "
        + "KubeProxyConfiguration.clientConnection.burst of type int32", failure(HEAD + "clientConnection:\n  burst: \"10\"\n"));
    assertEquals("f.yaml:4:10: json: cannot unmarshal number into Go struct field "
        + "KubeProxyConfiguration.clientConnection.burst of type int32", failure(HEAD + "clientConnection:\n  burst: 1.5\n"));
    assertEquals("f.yaml:3:14: json: cannot unmarshal number into Go struct field "
        + "KubeProxyConfiguration.oomScoreAdj of type int32", failure(HEAD + "oomScoreAdj: 99999999999\n"));
    assertEquals("f.yaml:4:14: json: cannot unmarshal number into Go struct field "
        + "KubeProxyConfiguration.logging.verbosity of type uint32", failure(HEAD + "logging:\n  verbosity: -1\n"));
    assertEquals("f.yaml:4:6: json: cannot unmarshal string into Go struct field "
        + "KubeProxyConfiguration.featureGates.X of type bool", failure(HEAD + "featureGates:\n  X: \"true\"\n"));
    assertEquals("f.yaml:3:20: json: cannot unmarshal string into Go struct field "
        + "KubeProxyConfiguration.nodePortAddresses of type []string", failure(HEAD + "nodePortAddresses: 10.0.0.0/8\n"));
    assertEquals("f.yaml:3:11: json: cannot unmarshal array into Go struct field "
        + "KubeProxyConfiguration.iptables of type IPTables", failure(HEAD + "iptables: [1]\n"));
    assertEquals(5.0f, decode(HEAD + "clientConnection:\n  qps: 5\n").config().clientConnection.qps, "int into float32");
    assertEquals("f.yaml:5:28: field logging.options.text.infoBufferSize: quantities must match the regular expression "
        + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        failure(HEAD + "logging:\n  options:\n    text: {infoBufferSize: lots}\n"));
    // null leaves a value field alone, as encoding/json does
    assertEquals("", decode(HEAD + "hostnameOverride: null\n").config().hostnameOverride);
  }

  @Test
  void writtenDefaultsMatchUpstreamsDocument() throws Exception {
    KubeProxyConfiguration c = ConfigDefaults.defaulted();
    c.mode = "iptables";
    c.detectLocalMode = "ClusterCIDR";
    String yaml = ConfigCodec.encodeYaml(c);
    String expected = new String(getClass().getResourceAsStream("/default-v1alpha1.yaml").readAllBytes(),
        StandardCharsets.UTF_8);
    assertEquals(expected, yaml);
  }

  @Test
  void reverseConversionPutsSyncPeriodsInTheActiveSection() {
    KubeProxyConfiguration c = ConfigDefaults.defaulted();
    c.mode = "nftables";
    c.nftables.syncPeriod = Duration.ofSeconds(10);
    c.nftables.masqueradeAll = true;
    String yaml = ConfigCodec.encodeYaml(c);
    assertTrue(yaml.contains("nftables:\n  masqueradeAll: true\n  masqueradeBit: 14\n  minSyncPeriod: 1s\n  syncPeriod: 10s\n"), yaml);
    assertTrue(yaml.contains("iptables:\n  localhostNodePorts: true\n  masqueradeAll: false\n  masqueradeBit: 14\n"
        + "  minSyncPeriod: 0s\n  syncPeriod: 0s\n"), yaml);
  }

  @Test
  void roundTrip() throws Exception {
    KubeProxyConfiguration c = ConfigDefaults.defaulted();
    c.mode = "nftables";
    c.detectLocalMode = "NodeCIDR";
    c.nodePortAddresses = List.of("10.0.0.0/8", "fd00::/64");
    c.featureGates.put("MultiCIDRServiceAllocator", true);
    c.nftables.minSyncPeriod = Duration.ofMillis(500);
    c.logging.vmodule = List.of(new KubeProxyConfiguration.VModuleItem("Proxier*", 4));
    c.conntrack.udpTimeout = Duration.ofSeconds(30);
    c.clientConnection.qps = 7.5f;
    c.hostnameOverride = "node-1";
    String once = ConfigCodec.encodeYaml(c);
    ConfigCodec.Decoded back = ConfigCodec.decode("out.yaml", once.getBytes(StandardCharsets.UTF_8));
    assertTrue(back.strict(), back.strictErrors().toString());
    assertEquals(once, ConfigCodec.encodeYaml(back.config()));
    assertEquals(ConfigzJson.encode(c), ConfigzJson.encode(back.config()));
  }
}
