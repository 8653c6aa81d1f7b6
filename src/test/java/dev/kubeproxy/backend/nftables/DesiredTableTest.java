package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.ElementValue;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Table;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.backend.nftables.objects.Verdict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

@Unit
class DesiredTableTest {
  private static Rule rule(String chain, String target) {
    return new Rule(chain, Verdict.jump(target));
  }

  @Test
  void aTransactionIsPlayedAsTheKernelWouldApplyIt() {
    Chain chain = Chain.regular("c");
    Chain gone = Chain.regular("gone");
    NftSet set = NftSet.of("s", "ipv4_addr", null);
    NftSet deleted = NftSet.of("t", "ipv4_addr", null);
    Element a = Element.ofSet("s", "10.0.0.1");
    Element b = Element.ofSet("s", "10.0.0.2");
    Transaction tx = new Transaction().add(new Table(null)).add(chain).add(rule("c", "x")).add(rule("c", "y"))
        .flush(chain).add(rule("c", "z")).add(gone).delete(gone)
        .add(set).add(a).add(b).delete(Element.ofSet("s", "10.0.0.1"))
        .add(deleted).add(Element.ofSet("t", "10.0.0.3")).delete(deleted);

    DesiredTable table = new DesiredTable();
    table.play(tx);

    assertEquals(List.of("c"), List.copyOf(table.chains().keySet()));
    assertEquals(List.of(rule("c", "z")), table.rules("c"));
    assertEquals(List.of(), table.rules("gone"));
    assertEquals(List.of("s"), List.copyOf(table.containers().keySet()));
    assertEquals(List.of(b), table.elements("s"));
    assertEquals(List.of(), table.elements("t"));
  }

  @Test
  void aServiceChainKeepsItsOwnRuleList() {
    List<Rule> rules = List.of(rule("svc", "a"), rule("svc", "b"));
    DesiredTable table = new DesiredTable();
    table.chain(Chain.regular("svc"), rules);

    assertSame(rules, table.rules("svc"));
  }

  @Test
  void aShardsElementsAreMadeFromItsBlocksWhenAskedFor() {
    String shard = EndpointSlots.PREFIX + "tcp-0";
    Endpoint ep1 = new Endpoint("10.1.0.1", 80, false, true, true, false, Set.of());
    Endpoint ep2 = new Endpoint("10.1.0.2", 80, false, true, true, false, Set.of());
    DesiredTable table = new DesiredTable();
    table.container(EndpointSlots.declaration(shard, new FamilySyntax(dev.kubeproxy.net.IpFamily.IPv4)));
    table.add(new ServicePortRules.EndpointBlock(shard, 0, List.of(ep1, ep2)));
    table.add(new ServicePortRules.EndpointBlock(shard, EndpointSlots.REGION, List.of(ep2)));

    List<Element> made = table.elements(shard);
    int half = EndpointSlots.MODULUS / 2;
    assertEquals(List.of("0-" + (half - 1), half + "-" + (EndpointSlots.MODULUS - 1),
        EndpointSlots.REGION + "-" + (EndpointSlots.REGION + EndpointSlots.MODULUS - 1)),
        made.stream().map(Element::keyText).toList());
    assertEquals(new ElementValue.Target("10.1.0.2", 80), made.get(1).value());
    List<Element> again = table.elements(shard);
    assertEquals(made, again);
    assertNotSame(made.get(0), again.get(0), "made anew: the table does not hold them");
    assertFalse(table.containers().isEmpty());
  }
}
