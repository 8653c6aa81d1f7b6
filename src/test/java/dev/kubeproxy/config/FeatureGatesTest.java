package dev.kubeproxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FeatureGatesTest {
  @Test
  void defaults() {
    FeatureGates g = FeatureGates.apply(Map.of()).gates();
    assertTrue(g.isEnabled("NFTablesProxyMode"));
    assertFalse(g.isEnabled("MultiCIDRServiceAllocator"));
    assertTrue(g.isEnabled("KubeProxyDrainingTerminatingNodes"));
    assertTrue(g.isEnabled("ServiceTrafficDistribution"));
  }

  @Test
  void explicitSettingsAndBulkToggles() {
    FeatureGates g = FeatureGates.apply(Map.of("MultiCIDRServiceAllocator", true, "AllAlpha", true,
        "WinDSR", false)).gates();
    assertTrue(g.isEnabled("MultiCIDRServiceAllocator"));
    assertTrue(g.isEnabled("LoggingAlphaOptions"), "AllAlpha turns on unset alpha gates");
    assertFalse(g.isEnabled("WinDSR"), "an explicit setting beats AllAlpha");
    assertFalse(FeatureGates.apply(Map.of("AllBeta", false, "NFTablesProxyMode", false)).gates()
        .isEnabled("NFTablesProxyMode"));
  }

  @Test
  void errorsAsUpstream() {
    assertEquals("unrecognized feature gate: Foo",
        assertThrows(IllegalArgumentException.class, () -> FeatureGates.apply(Map.of("Foo", true))).getMessage());
    assertEquals("cannot set feature gate KubeProxyDrainingTerminatingNodes to false, feature is locked to true",
        assertThrows(IllegalArgumentException.class,
            () -> FeatureGates.apply(Map.of("KubeProxyDrainingTerminatingNodes", false))).getMessage());
  }

  @Test
  void gaGateWarns() {
    assertEquals(List.of("Setting GA feature gate KubeProxyDrainingTerminatingNodes=true. It will be removed in a "
        + "future release."), FeatureGates.apply(Map.of("KubeProxyDrainingTerminatingNodes", true)).warnings());
  }

  @Test
  void unknownNameQueriedIsAProgrammingError() {
    assertThrows(IllegalArgumentException.class, () -> FeatureGates.of(Map.of()).isEnabled("NoSuchGate"));
  }
}
