package dev.kubeproxy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.kubeproxy.testutil.tier.Unit;
import org.junit.jupiter.api.Test;

@Unit
class ServicePortNameTest {
  @Test
  void stringFormLeavesProtocolOut() {
    NamespacedName svc = new NamespacedName("demo", "web");
    assertEquals("demo/web:http", new ServicePortName(svc, "http", "TCP").toString());
    assertEquals("demo/web", new ServicePortName(svc, "", "UDP").toString());
    assertNotEquals(new ServicePortName(svc, "dns", "TCP"), new ServicePortName(svc, "dns", "UDP"));
  }
}
