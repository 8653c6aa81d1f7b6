package dev.kubeproxy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Unit
class FlagParserTest {

  private static ParsedFlags parse(String... args) throws FlagParseException {
    return FlagParser.parse(List.of(args));
  }

  private static String error(String... args) {
    return assertThrows(FlagParseException.class, () -> parse(args)).getMessage();
  }

  @Test
  void equalsAndSeparateValueForms() throws Exception {
    ParsedFlags f = parse("--bind-address=10.0.0.1", "--hostname-override", "node-a");
    assertEquals("10.0.0.1", f.getString("bind-address"));
    assertEquals("node-a", f.getString("hostname-override"));
    assertTrue(f.isSet("bind-address"));
    assertFalse(f.isSet("master"));
  }

  @Test
  void bareAndExplicitBooleans() throws Exception {
    ParsedFlags f = parse("--masquerade-all", "--iptables-localhost-nodeports=false", "--cleanup=true");
    assertTrue(f.getBool("masquerade-all"));
    assertFalse(f.getBool("iptables-localhost-nodeports"));
    assertTrue(f.getBool("cleanup"));
    assertTrue(parse().getBool("iptables-localhost-nodeports"), "default true");
  }

  @ParameterizedTest
  @CsvSource({"-v=3,3", "--v=4,4", "-v5,5"})
  void verbosityForms(String arg, int level) throws Exception {
    assertEquals(level, parse(arg).<Integer>get("v"));
  }

  @Test
  void verbositySeparateValue() throws Exception {
    assertEquals(6, parse("-v", "6").<Integer>get("v"));
    assertEquals(7, parse("--v", "7").<Integer>get("v"));
  }

  @Test
  void goDurations() throws Exception {
    ParsedFlags f = parse("--iptables-sync-period=1m30s", "--config-sync-period", "15m0s", "--iptables-min-sync-period=0s");
    assertEquals(Duration.ofSeconds(90), f.get("iptables-sync-period"));
    assertEquals(Duration.ofMinutes(15), f.get("config-sync-period"));
    assertEquals(Duration.ZERO, f.get("iptables-min-sync-period"));
    assertEquals(Duration.ofHours(24), parse().get("conntrack-tcp-timeout-established"));
  }

  @Test
  void underscoresReadAsDashes() throws Exception {
    ParsedFlags f = parse("--healthz_bind_address=127.0.0.1:1234", "--hostname_override", "a_b");
    assertEquals("127.0.0.1:1234", f.getString("healthz-bind-address"));
    assertEquals("a_b", f.getString("hostname-override"), "values keep their underscores");
  }

  @Test
  void commaListsAccumulate() throws Exception {
    ParsedFlags f = parse("--nodeport-addresses=10.0.0.0/8,192.168.0.0/16", "--nodeport-addresses", "1.0.0.0/8",
        "--ipvs-exclude-cidrs=10.1.0.0/16");
    assertEquals(List.of("10.0.0.0/8", "192.168.0.0/16", "1.0.0.0/8"), f.get("nodeport-addresses"));
    assertEquals(List.of("10.1.0.0/16"), f.get("ipvs-exclude-cidrs"));
  }

  @Test
  void featureGatesMap() throws Exception {
    ParsedFlags f = parse("--feature-gates=MultiCIDRServiceAllocator=true,WinDSR=false", "--feature-gates=AllBeta=1");
    assertEquals(Map.of("MultiCIDRServiceAllocator", true, "WinDSR", false, "AllBeta", true), f.get("feature-gates"));
  }

  @Test
  void negativeNumberAsSeparateValue() throws Exception {
    assertEquals(-500, parse("--oom-score-adj", "-500").<Integer>get("oom-score-adj"));
  }

  @Test
  void lastValueWins() throws Exception {
    assertEquals("b", parse("--master=a", "--master=b").getString("master"));
  }

  @Test
  void deprecatedFlagsWarn() throws Exception {
    ParsedFlags f = parse("--healthz-port=0", "--metrics-port=1234", "--proxy-port-range=100-200");
    assertEquals(List.of(
        "Flag --healthz-port has been deprecated, This flag is deprecated and will be removed in a future release. "
            + "Please use --healthz-bind-address instead.",
        "Flag --metrics-port has been deprecated, This flag is deprecated and will be removed in a future release. "
            + "Please use --metrics-bind-address instead.",
        "Flag --proxy-port-range has been deprecated, This flag has no effect and will be removed in a future release."),
        f.warnings());
    assertEquals(0, f.<Integer>get("healthz-port"));
  }

  @Test
  void emptyAddressLeavesTheDefault() throws Exception {
    ParsedFlags f = parse("--healthz-bind-address=");
    assertFalse(f.isSet("healthz-bind-address"));
    assertEquals("0.0.0.0:10256", f.getString("healthz-bind-address"));
  }

  @Test
  void ourOwnFlags() throws Exception {
    ParsedFlags f = parse("--manifests", "/tmp/m", "--dry-run");
    assertEquals("/tmp/m", f.getString("manifests"));
    assertTrue(f.getBool("dry-run"));
  }

  @Test
  void errorsReadLikeUpstream() {
    assertEquals("invalid argument \"x\" for \"--bind-address\" flag: \"x\" is not a valid IP address",
        error("--bind-address=x"));
    assertEquals("invalid argument \"1x\" for \"--iptables-sync-period\" flag: time: unknown unit \"x\" in duration \"1x\"",
        error("--iptables-sync-period=1x"));
    assertEquals("invalid argument \"abc\" for \"--iptables-sync-period\" flag: time: invalid duration \"abc\"",
        error("--iptables-sync-period=abc"));
    assertEquals("invalid argument \"99999999999\" for \"--kube-api-burst\" flag: strconv.ParseInt: parsing "
        + "\"99999999999\": value out of range", error("--kube-api-burst=99999999999"));
    assertEquals("invalid argument \"ten\" for \"--oom-score-adj\" flag: strconv.ParseInt: parsing \"ten\": invalid syntax",
        error("--oom-score-adj=ten"));
    assertEquals("invalid argument \"maybe\" for \"--masquerade-all\" flag: strconv.ParseBool: parsing \"maybe\": "
        + "invalid syntax", error("--masquerade-all=maybe"));
    assertEquals("invalid argument \"abc\" for \"--kube-api-qps\" flag: strconv.ParseFloat: parsing \"abc\": invalid "
        + "syntax", error("--kube-api-qps=abc"));
    assertEquals("invalid argument \"1.2.3.4:x\" for \"--healthz-bind-address\" flag: \"x\" is not a valid number",
        error("--healthz-bind-address=1.2.3.4:x"));
    assertEquals("invalid argument \"foo:1\" for \"--metrics-bind-address\" flag: \"foo\" is not a valid IP address",
        error("--metrics-bind-address=foo:1"));
    assertEquals("invalid argument \"a:b:c\" for \"--metrics-bind-address\" flag: \"a:b:c\" is not in a valid format "
        + "(ip or ip:port): address a:b:c: too many colons in address", error("--metrics-bind-address=a:b:c"));
    assertEquals("invalid argument \"A\" for \"--feature-gates\" flag: missing bool value for A",
        error("--feature-gates=A"));
    assertEquals("invalid argument \"A=x\" for \"--feature-gates\" flag: invalid value of A=x, err: "
        + "strconv.ParseBool: parsing \"x\": invalid syntax", error("--feature-gates=A=x"));
    assertEquals("invalid argument \"-1\" for \"-v, --v\" flag: strconv.ParseUint: parsing \"-1\": invalid syntax",
        error("--v=-1"));
    assertEquals("unknown flag: --foo", error("--foo=1"));
    assertEquals("unknown shorthand flag: 'x' in -x", error("-x"));
    assertEquals("flag needs an argument: --master", error("--master"));
    assertEquals("\"kube-proxy\" does not take any arguments, got [\"a\" \"b\"]", error("a", "b"));
  }

  @Test
  void versionAndHelp() throws Exception {
    assertEquals("true", parse("--version").getString("version"));
    assertEquals("raw", parse("--version=raw").getString("version"));
    assertTrue(parse("-h").getBool("help"));
    assertTrue(parse("--help").getBool("help"));
  }

  @Test
  void helpListsEveryVisibleFlagAndTheGates() {
    String help = HelpPrinter.render();
    for (FlagDef d : KubeProxyFlags.ALL) {
      if (d.deprecation() == null) {
        assertTrue(help.contains("--" + d.name() + (d.type().helpName.isEmpty() ? "" : " " + d.type().helpName)),
            d.name());
      } else {
        assertFalse(help.contains("--" + d.name() + " "), "deprecated flags are hidden: " + d.name());
      }
    }
    assertTrue(help.contains("NFTablesNetlink=true|false (BETA - default=true)"));
    assertFalse(help.contains("MultiCIDRServiceAllocator"), "GA gates are not listed");
    assertFalse(help.contains("KubeProxyIPVS"), "deprecated gates are not listed");
    assertTrue(help.contains("(default \"application/vnd.kubernetes.protobuf\")"));
    assertTrue(help.contains("(default 24h0m0s)"));
  }
}
