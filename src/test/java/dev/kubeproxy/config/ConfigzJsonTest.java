package dev.kubeproxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

@Unit
class ConfigzJsonTest {
  @Test
  void oneSectionHoldingThePublicTypeWithItsTypeMeta() {
    KubeProxyConfiguration c = ConfigDefaults.defaulted();
    c.mode = "iptables";
    JsonObject o = ConfigzJson.of(c);
    assertEquals(List.of("kubeproxy.config.k8s.io"), List.copyOf(o.fieldNames()));
    JsonObject v = o.getJsonObject("kubeproxy.config.k8s.io");
    assertEquals(List.of("kind", "apiVersion"), List.copyOf(v.fieldNames()).subList(0, 2));
    assertEquals("KubeProxyConfiguration", v.getString("kind"));
    assertEquals("kubeproxy.config.k8s.io/v1alpha1", v.getString("apiVersion"));
    assertEquals(32768, v.getJsonObject("conntrack").getInteger("maxPerCore"));
    assertEquals("24h0m0s", v.getJsonObject("conntrack").getString("tcpEstablishedTimeout"));
    assertEquals("127.0.0.1:10249", v.getString("metricsBindAddress"));
    assertFalse(v.containsKey("Linux"), "not the internal struct");
  }

  @Test
  void theActiveModesSectionCarriesTheSyncPeriods() {
    KubeProxyConfiguration c = ConfigDefaults.defaulted();
    c.mode = "nftables";
    c.nftables.masqueradeAll = true;
    c.nftables.syncPeriod = java.time.Duration.ofSeconds(10);
    c.clusterCIDR = "10.244.0.0/16,fd00:10:244::/64";
    c.nodePortAddresses = List.of("primary");
    JsonObject v = ConfigzJson.of(c).getJsonObject("kubeproxy.config.k8s.io");
    assertEquals(Boolean.TRUE, v.getJsonObject("nftables").getBoolean("masqueradeAll"));
    assertEquals("10s", v.getJsonObject("nftables").getString("syncPeriod"));
    assertEquals("0s", v.getJsonObject("iptables").getString("syncPeriod"));
    assertEquals("10.244.0.0/16,fd00:10:244::/64", v.getString("clusterCIDR"));
    assertEquals(List.of("primary"), v.getJsonArray("nodePortAddresses").getList());
  }
}
