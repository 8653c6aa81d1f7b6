package dev.kubeproxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@Unit
class FeatureGatesTest {
  @Test
  void defaultsOfUpstream137() {
    FeatureGates g = FeatureGates.apply(Map.of()).gates();
    assertTrue(g.isEnabled("NFTablesProxyMode"));
    assertTrue(g.isEnabled("MultiCIDRServiceAllocator"));
    assertTrue(g.isEnabled("ServiceTrafficDistribution"));
    assertTrue(g.isEnabled("AllowServiceExternalIPs"));
    assertTrue(g.isEnabled("KubeProxyIPVS"));
    assertTrue(g.isEnabled("NFTablesNetlink"));
    assertTrue(g.isEnabled("NativeHistograms"));
    assertTrue(g.isEnabled("ComponentStatusz"));
    assertTrue(g.isEnabled("ComponentFlagz"));
    assertFalse(g.isEnabled(FeatureGates.KUBE_PROXY_NFTABLES_LOCALHOST_NODE_PORTS));
  }

  @Test
  void gatesOfA136ConfigurationAreAccepted() {
    FeatureGates g = FeatureGates.apply(Map.of("NativeHistograms", false, "AllowServiceExternalIPs", false,
        "KubeProxyIPVS", false, "NFTablesNetlink", false, "KubeProxyNFTablesLocalhostNodePorts", true)).gates();
    assertFalse(g.isEnabled("NativeHistograms"));
    assertFalse(g.isEnabled("AllowServiceExternalIPs"));
    assertFalse(g.isEnabled("KubeProxyIPVS"));
    assertFalse(g.isEnabled("NFTablesNetlink"));
    assertTrue(g.isEnabled("KubeProxyNFTablesLocalhostNodePorts"));
  }

  @Test
  void explicitSettingsAndBulkToggles() {
    FeatureGates g = FeatureGates.apply(Map.of("AllAlpha", true, "LoggingBetaOptions", false)).gates();
    assertTrue(g.isEnabled("LoggingAlphaOptions"), "AllAlpha turns on unset alpha gates");
    assertTrue(g.isEnabled("KubeProxyNFTablesLocalhostNodePorts"));
    assertFalse(g.isEnabled("LoggingBetaOptions"), "an explicit setting beats the defaults");
    FeatureGates alphaOff = FeatureGates.apply(Map.of("AllAlpha", true, "KubeProxyNFTablesLocalhostNodePorts", false))
        .gates();
    assertFalse(alphaOff.isEnabled("KubeProxyNFTablesLocalhostNodePorts"), "an explicit setting beats AllAlpha");
  }

  @Test
  void lockedGatesAcceptOnlyTheirLockedValue() {
    for (String name : List.of("NFTablesProxyMode", "MultiCIDRServiceAllocator", "ServiceTrafficDistribution",
        "TopologyAwareHints", "PreferSameTrafficDistribution", "ComponentSLIs", "WinDSR", "WinOverlay")) {
      assertEquals("cannot set feature gate " + name + " to false, feature is locked to true",
          assertThrows(IllegalArgumentException.class, () -> FeatureGates.apply(Map.of(name, false))).getMessage());
      assertEquals(List.of("Setting GA feature gate " + name + "=true. It will be removed in a future release."),
          FeatureGates.apply(Map.of(name, true)).warnings());
    }
  }

  @Test
  void removedGatesAreUnrecognized() {
    assertEquals("unrecognized feature gate: Foo",
        assertThrows(IllegalArgumentException.class, () -> FeatureGates.apply(Map.of("Foo", true))).getMessage());
    assertEquals("unrecognized feature gate: KubeProxyDrainingTerminatingNodes",
        assertThrows(IllegalArgumentException.class,
            () -> FeatureGates.apply(Map.of("KubeProxyDrainingTerminatingNodes", true))).getMessage());
    assertEquals("unrecognized feature gate: LoadBalancerIPMode",
        assertThrows(IllegalArgumentException.class,
            () -> FeatureGates.apply(Map.of("LoadBalancerIPMode", false))).getMessage());
  }

  @Test
  void deprecatedGateWarns() {
    assertEquals(List.of("Setting deprecated feature gate KubeProxyIPVS=false. It will be removed in a future "
        + "release."), FeatureGates.apply(Map.of("KubeProxyIPVS", false)).warnings());
  }

  @Test
  void helpListsTheAlphaAndBetaGatesSorted() {
    assertEquals(List.of(
        "AllAlpha=true|false (ALPHA - default=false)",
        "AllBeta=true|false (BETA - default=false)",
        "ComponentFlagz=true|false (BETA - default=true)",
        "ComponentStatusz=true|false (BETA - default=true)",
        "ContextualLogging=true|false (BETA - default=true)",
        "KubeProxyNFTablesLocalhostNodePorts=true|false (ALPHA - default=false)",
        "LoggingAlphaOptions=true|false (ALPHA - default=false)",
        "LoggingBetaOptions=true|false (BETA - default=true)",
        "NFTablesNetlink=true|false (BETA - default=true)",
        "NativeHistograms=true|false (BETA - default=true)"), FeatureGates.helpLines());
  }

  @Test
  void unknownNameQueriedIsAProgrammingError() {
    assertThrows(IllegalArgumentException.class, () -> FeatureGates.of(Map.of()).isEnabled("NoSuchGate"));
  }
}
