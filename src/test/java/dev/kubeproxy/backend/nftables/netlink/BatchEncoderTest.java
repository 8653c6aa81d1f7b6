package dev.kubeproxy.backend.nftables.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.NftCounter;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Table;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.testutil.tier.Unit;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import dev.kubeproxy.backend.nftables.objects.ElementValue;
import dev.kubeproxy.backend.nftables.objects.Match;
import dev.kubeproxy.backend.nftables.objects.Match.Field;
import dev.kubeproxy.backend.nftables.objects.Statement;
import dev.kubeproxy.backend.nftables.objects.Verdict;

/**
 * The batch framing, and the commands that must be left to nft (a transaction is sent over
 * netlink whole or not at all). What the kernel makes of the messages is checked against nft in
 * NftablesNetlinkTest.
 */
@Unit
class BatchEncoderTest {
  private static final String CHAIN = "service-AXK6CI2C-demo/web/tcp/http";
  private final BatchEncoder v4 = new BatchEncoder(IpFamily.IPv4);

  /** type, flags and sequence number of each message of a batch. */
  private static List<int[]> headers(ByteBuffer batch) {
    assertTrue(batch.isDirect() && batch.position() == 0, "the batch is sent as it is, from its start");
    ByteBuffer in = batch.duplicate().order(ByteOrder.nativeOrder());
    List<int[]> out = new ArrayList<>();
    while (in.remaining() > 0) {
      int start = in.position();
      int length = in.getInt(start);
      assertEquals(0, length % 4, "messages are 4-byte aligned");
      out.add(new int[] {in.getShort(start + 4) & 0xffff, in.getShort(start + 6) & 0xffff, in.getInt(start + 8)});
      in.position(start + length);
    }
    return out;
  }

  @Test
  void aPartialSyncIsOneBatchWithAnAcknowledgedMessagePerCommand() throws Exception {
    Transaction tx = new Transaction()
        .delete(new Element("endpoint-ranges-tcp-0", true, List.of("7"), null, null))
        .flush(Chain.regular(CHAIN))
        .add(new Rule(CHAIN, List.of(new Match.Address(Field.DESTINATION, false, "10.96.12.34"),
            new Match.DestinationPort("tcp", 80), new Match.Address(Field.SOURCE, true, "10.244.0.0/16")),
            Verdict.jump("mark-for-masquerade")))
        .add(new Rule(CHAIN, List.of(new Match.Protocol("tcp")),
            new Statement.DnatFromMap(2, 6, "endpoint-ranges-tcp-0")))
        .add(new Element("endpoint-ranges-tcp-0", true, List.of("6"), new ElementValue.Target("10.244.1.5", 8080), null))
        .add(Element.ofMap("no-endpoint-services", List.of("10.96.0.9", "udp", "53"), Verdict.goTo("reject-chain"),
            "demo/dns"))
        .delete(Chain.regular("service-OLD"));
    Batch batch = v4.encode(tx, 100);
    List<int[]> messages = headers(batch.bytes());
    assertEquals(tx.size() + 2, messages.size());
    assertEquals(0x10, messages.get(0)[0], "batch begin");
    assertEquals(0x11, messages.get(messages.size() - 1)[0], "batch end");
    int[] types = {14, 8, 6, 6, 12, 12, 5}; // DELSETELEM DELRULE NEWRULE NEWRULE NEWSETELEM NEWSETELEM DELCHAIN
    for (int i = 0; i < tx.size(); i++) {
      int[] m = messages.get(i + 1);
      assertEquals(10 << 8 | types[i], m[0], "command " + i);
      assertEquals(i == tx.size() - 1 ? 0x4 : 0, m[1] & 0x4, "only the last command asks for an acknowledgement");
      assertEquals(100 + i, m[2], "sequence numbers follow the commands");
    }
    assertEquals(0x400 | 0x800, messages.get(3)[1] & 0xc00, "rules are appended");
    assertEquals(tx.operations(), batch.commands());
  }

  @Test
  void aRuleWithAnAnonymousSetIsPrecededByItsSetAndElementsUnderTheRulesSequence() throws Exception {
    Rule firewall = new Rule(CHAIN, List.of(new Match.AddressIn(Field.SOURCE, true,
        List.of("198.51.100.0/24", "192.168.0.0/16"))), Verdict.DROP);
    Transaction tx = new Transaction().add(firewall).add(Chain.regular("x"));
    Batch batch = v4.encode(tx, 7);
    List<int[]> messages = headers(batch.bytes());
    int[] types = {9, 12, 6, 3}; // NEWSET NEWSETELEM NEWRULE NEWCHAIN
    for (int i = 0; i < types.length; i++) {
      assertEquals(10 << 8 | types[i], messages.get(i + 1)[0], "message " + i);
      assertEquals(7 + i, messages.get(i + 1)[2]);
    }
    assertEquals(List.of(tx.operations().get(0), tx.operations().get(0), tx.operations().get(0),
        tx.operations().get(1)), batch.commands(), "an error in the set's messages names the rule");
  }

  @Test
  void elementsOfOneSetShareMessagesWithinTheAttributeLimit() throws Exception {
    Transaction tx = new Transaction();
    for (int i = 0; i < 5000; i++) {
      tx.add(Element.ofSet("cluster-ips", "10.96." + i / 250 + "." + (i % 250 + 1)));
    }
    Batch batch = v4.encode(tx, 1);
    List<int[]> messages = headers(batch.bytes());
    assertTrue(messages.size() > 3 && messages.size() < 10, "a few messages: " + messages.size());
    assertEquals(0x4, messages.get(messages.size() - 2)[1] & 0x4, "the last message asks for an acknowledgement");
    assertEquals(0, messages.get(1)[1] & 0x4);
  }

  @Test
  void anAddressThatDoesNotParseLeavesTheKeysOfOthersAsTheyWere() throws Exception {
    String endpoint = "10.244.1.5";
    Element hairpin = Element.ofSet("hairpin-connections", endpoint, endpoint, "tcp", "8080");
    String form = v4.keyForm(hairpin).done();

    assertThrows(Unsupported.class, () -> v4.keyForm(Element.ofSet("hairpin-connections",
        "11.9.9.300", "11.9.9.300", "tcp", "8080")));

    assertEquals(form, v4.keyForm(Element.ofSet("hairpin-connections", endpoint, endpoint, "tcp", "8080")).done());
    assertEquals(form, v4.elementForm(hairpin).done(), "a set's element without a comment reads back as its key");
  }

  @Test
  void whatTheEncoderDoesNotKnowIsLeftToNft() {
    List<Transaction> nftOnly = List.of(
        new Transaction().flush(new Table("rules for kube-proxy")),
        new Transaction().add(Chain.base("nat-prerouting", "route", "prerouting", -100)),
        new Transaction().add(NftSet.of("other-set", "ipv4_addr", null)),
        new Transaction().add(NftSet.of("cluster-ips", "ipv6_addr", null)),
        new Transaction().add(Element.ofSet("affinity-X", "10.0.0.1")),
        new Transaction().add(Element.ofSet("cluster-ips", "fd00::1")),
        new Transaction().add(new Element("endpoint-ranges-tcp-0", true, List.of("1"), null, null)));
    for (Transaction tx : nftOnly) {
      String text = tx.render(IpFamily.IPv4);
      assertThrows(Unsupported.class, () -> v4.encode(tx, 1), text);
      // One unsupported command keeps the whole transaction off netlink.
      Transaction mixed = new Transaction().flush(Chain.regular(CHAIN));
      tx.operations().forEach(op -> {
        switch (op.verb()) {
          case FLUSH -> mixed.flush(op.object());
          case DELETE -> mixed.delete(op.object());
          default -> mixed.add(op.object());
        }
      });
      assertThrows(Unsupported.class, () -> v4.encode(mixed, 1), text);
    }
  }

  @Test
  void namedCountersAreAddedAndDeletedButNeverFlushed() throws Exception {
    NftCounter counter = new NftCounter("localhost-nodeport-rejected-udp");
    assertEquals(2, v4.encode(new Transaction().add(counter).delete(counter), 1).commands().size());
    assertThrows(Unsupported.class, () -> v4.encode(new Transaction().flush(counter), 1));
  }

  /** Rules nft itself would refuse. */
  static List<Rule> unsupportedRules() {
    return List.of(
        new Rule("c", List.of(new Match.Address(Field.SOURCE, true, "10.244.0.1/16")), Verdict.jump("x")),
        new Rule("c", List.of(new Match.Address(Field.DESTINATION, false, "fd00::1")), Verdict.jump("x")),
        new Rule("c", new Statement.Dnat("10.0.0.1", 80)),
        new Rule("c", List.of(new Match.Protocol("tcp")), new Statement.Dnat("fd00::1", 80)),
        new Rule("c", List.of(new Match.InterfaceName(true, "an-interface-name-too-long")), Verdict.jump("x")));
  }

  @ParameterizedTest
  @MethodSource("unsupportedRules")
  void rulesOutsideWhatTheEncoderWritesAreUnsupported(Rule rule) {
    assertThrows(Unsupported.class, () -> new RuleEncoder(IpFamily.IPv4).encode(rule, () -> 1));
  }

  static List<Rule> supportedRules() {
    return List.of(
        new Rule("c", List.of(new Match.Address(Field.DESTINATION, false, "10.96.12.34"),
            new Match.DestinationPort("sctp", 80), new Match.InterfaceName(true, "veth*")), Verdict.jump("x")),
        new Rule("c", List.of(new Match.Address(Field.SOURCE, true, "10.240.0.0/12")), Verdict.jump("x")),
        new Rule("c", List.of(new Match.LocalAddress(Field.SOURCE)), Verdict.goTo("service-X")),
        new Rule("c", List.of(new Match.InterfaceName(false, "cbr0")), Verdict.goTo("service-X")),
        new Rule("c", List.of(new Match.Protocol("udp")), new Statement.Dnat("10.244.1.5", 53)),
        new Rule("c", List.of(new Match.Protocol("sctp")), new Statement.DnatFromMap(3, 0, "endpoint-ranges-sctp-0")),
        new Rule("c", List.of(new Match.NewConnection()), Verdict.jump("services")),
        new Rule("c", List.of(new Match.DestinationNatted(), new Match.TupleInSet("hairpin-connections")),
            Verdict.jump("mark-for-masquerade")),
        new Rule("c", List.of(new Match.MarkUnset("0x00004000")), Verdict.RETURN),
        new Rule("c", new Statement.SetMark(true, "0x00004000")),
        new Rule("c", new Statement.Masquerade()),
        new Rule("c", new Statement.RememberSource("affinity-X")),
        new Rule("c", new Statement.DestinationVmap(true, "service-ips")),
        new Rule("c", new Statement.Reject()),
        new Rule("c", new Statement.CountedReject("localhost-nodeport-rejected-udp")),
        new Rule("c", Verdict.DROP),
        new Rule("c", new Statement.RandomGoto(List.of("a", "b"))),
        new Rule("c", List.of(new Match.AddressIn(Field.SOURCE, true, List.of("198.51.100.0/24"))), Verdict.DROP),
        new Rule("c", List.of(new Match.AddressIn(Field.DESTINATION, false, List.of("10.96.0.0/16", "10.97.0.0/16"))),
            Verdict.DROP));
  }

  @ParameterizedTest
  @MethodSource("supportedRules")
  void rulesOfTheFixedAndServicePartsEncode(Rule rule) throws Exception {
    assertTrue(!new RuleEncoder(IpFamily.IPv4).encode(rule, () -> 1).expressions().isEmpty());
  }
}
