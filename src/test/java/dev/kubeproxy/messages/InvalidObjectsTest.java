package dev.kubeproxy.messages;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.messages.ClusterEvent;
import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.testutil.tier.Unit;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

@Unit
class InvalidObjectsTest {
  @Test
  void rememberedFromFailedValidationUntilAValidVersionOrADeleteArrives() {
    InvalidObjects invalid = new InvalidObjects(Clock.systemUTC());
    invalid.onEvent(EventRequest.invalidObject("Service", "ns", "web", "Service \"ns/web\" is invalid: spec.ports[0]"));
    invalid.onEvent(EventRequest.invalidObject("EndpointSlice", "ns", "web-1", "bad address"));
    invalid.onEvent(EventRequest.incorrectIpVersion("ns", "web", "fd00::1", "GatherEndpoints"));
    invalid.onEvent("not an event");
    assertEquals(2, invalid.all().size());

    invalid.onClusterEvent("Service", new ClusterEvent<>(ClusterEvent.Kind.SERVICE, ClusterEvent.Type.UPSERT,
        "ns/web", null, new Object()));
    List<InvalidObjects.Invalid> left = invalid.all();
    assertEquals(1, left.size());
    assertEquals("web-1", left.get(0).name());
    invalid.onClusterEvent("EndpointSlice", new ClusterEvent<>(ClusterEvent.Kind.ENDPOINT_SLICE,
        ClusterEvent.Type.DELETE, "ns/web-1", new Object(), null));
    assertEquals(0, invalid.all().size());
  }
}
