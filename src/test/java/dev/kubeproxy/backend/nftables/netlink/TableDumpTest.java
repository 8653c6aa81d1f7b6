package dev.kubeproxy.backend.nftables.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.ElementValue;
import dev.kubeproxy.backend.nftables.objects.Verdict;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** An element read back is named from its key form alone, the way the encoder writes that form. */
@Unit
class TableDumpTest {

  private static List<Element> elements(IpFamily family) {
    boolean v6 = family == IpFamily.IPv6;
    String service = v6 ? "fd00:10:96::1" : "10.96.0.1";
    String endpoint = v6 ? "fd00:10:244::5" : "10.244.1.5";
    return List.of(
        Element.ofSet("cluster-ips", service),
        Element.ofMap("service-ips", List.of(service, "tcp", "80"), Verdict.goTo("service-X"), null),
        Element.ofMap("service-nodeports", List.of("udp", "30053"), Verdict.goTo("external-X"), null),
        Element.ofSet("hairpin-connections", endpoint, endpoint, "sctp", "8080"),
        Element.ofMap("endpoint-ranges-tcp", List.of("3-7"), new ElementValue.Target(endpoint, 8080), null),
        Element.ofMap("endpoint-ranges-tcp", List.of("12"), new ElementValue.Target(endpoint, 8080), null));
  }

  /** The key form of e as the encoder writes it, at an offset in a larger array, then decoded. */
  private static Element roundTrip(IpFamily family, Element e, String after) throws Unsupported {
    String form = new BatchEncoder(family).keyForm(e).done() + after;
    char[] forms = ("<<" + form + ">>").toCharArray();
    return new TableDump(null, Values.nfproto(family), new ElementCodec(family))
        .decode(e.container(), e.inMap(), forms, 2, 2 + form.length());
  }

  @ParameterizedTest
  @EnumSource(value = IpFamily.class, names = {"IPv4", "IPv6"})
  void aKeyFormNamesItsElement(IpFamily family) throws Exception {
    for (Element e : elements(family)) {
      Element decoded = roundTrip(family, e, "");
      assertEquals(e.container(), decoded.container());
      assertEquals(e.inMap(), decoded.inMap(), e.toString());
      assertEquals(e.key(), decoded.key(), e.toString());
    }
  }

  @ParameterizedTest
  @EnumSource(value = IpFamily.class, names = {"IPv4", "IPv6"})
  void aKeyFormWithAnythingAfterItNamesNoElement(IpFamily family) throws Exception {
    for (Element e : elements(family)) {
      assertNull(roundTrip(family, e, "?"), "a range's start without its end: " + e);
      assertNull(roundTrip(family, e, "x"), e.toString());
    }
  }

  @ParameterizedTest
  @EnumSource(value = IpFamily.class, names = {"IPv4", "IPv6"})
  void aKeyOfAContainerThisAgentDoesNotWriteNamesNoElement(IpFamily family) throws Exception {
    Element service = elements(family).get(1);
    String form = new BatchEncoder(family).keyForm(service).done();
    TableDump dump = new TableDump(null, Values.nfproto(family), new ElementCodec(family));
    assertNull(dump.decode("someone-elses-map", true, form.toCharArray(), 0, form.length()));
    assertNull(dump.decode("service-ips", true, form.toCharArray(), 0, form.length() - 1), "cut short");
    assertNull(dump.decode("service-ips", true, new char[] {0}, 0, 1), "no key");
  }
}
