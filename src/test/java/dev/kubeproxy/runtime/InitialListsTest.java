package dev.kubeproxy.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.messages.ClusterEvent.Kind;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rules wait for every kind's initial list, and the families are told exactly once. */
@Unit
class InitialListsTest {
  @Test
  void completeOnceEveryKindIsInWhateverTheOrder() {
    InitialLists lists = new InitialLists();
    List<Boolean> answers = new ArrayList<>();
    for (Kind kind : List.of(Kind.NODE, Kind.SERVICE, Kind.SERVICE, Kind.SERVICE_CIDR)) {
      answers.add(lists.delivered(kind));
    }
    assertEquals(List.of(false, false, false, false), answers);
    assertFalse(lists.complete(), "EndpointSlices are still missing");
    assertTrue(lists.delivered(Kind.ENDPOINT_SLICE));
    assertTrue(lists.complete());
    assertFalse(lists.delivered(Kind.ENDPOINT_SLICE), "a second delivery starts nothing again");
    assertFalse(lists.delivered(Kind.NODE));
    assertTrue(lists.complete());
  }
}
