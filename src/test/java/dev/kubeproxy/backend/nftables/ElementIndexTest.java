package dev.kubeproxy.backend.nftables;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The element index's reference counts: an element shared by several ports stays until the last one goes. */
@Unit
class ElementIndexTest {
  private static final Element IP = Element.ofSet("cluster-ips", "10.96.0.10");
  private static final Element OTHER = Element.ofSet("cluster-ips", "10.96.0.11");

  @Test
  void anElementContributedTwiceIsWrittenOnceAndDeletedWithItsLastContribution() {
    ElementIndex index = new ElementIndex();
    assertEquals(List.of(IP), index.addFresh(List.of(IP, IP)));
    assertEquals(List.of(IP), index.indexed());

    ElementIndex.Delta first = index.update(List.of(IP), List.of());
    assertEquals(List.of(), first.deletions(), "one port still contributes it");
    assertEquals(List.of(IP), index.indexed());

    ElementIndex.Delta last = index.update(List.of(IP), List.of());
    assertEquals(List.of(IP), last.deletions());
    assertEquals(List.of(), index.indexed());
  }

  @Test
  void countsGrowAndShrinkAcrossUpdates() {
    ElementIndex index = new ElementIndex();
    index.addFresh(List.of(IP));
    assertEquals(List.of(), index.update(List.of(), List.of(IP)).additions(), "already in the kernel");
    assertEquals(List.of(), index.update(List.of(), List.of(IP)).additions());
    assertEquals(List.of(OTHER), index.update(List.of(), List.of(OTHER)).additions());
    for (int i = 0; i < 2; i++) {
      assertEquals(List.of(), index.update(List.of(IP), List.of()).deletions(), "contributions left: " + (2 - i));
    }
    assertEquals(List.of(IP), index.update(List.of(IP), List.of()).deletions());
    assertEquals(List.of(OTHER), index.indexed());
    assertEquals(List.of(), index.update(List.of(IP), List.of()).deletions(), "not held: nothing to delete");
  }
}
