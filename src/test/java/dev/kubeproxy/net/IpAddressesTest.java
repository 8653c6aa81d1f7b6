package dev.kubeproxy.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Unit;
import org.junit.jupiter.api.Test;

@Unit
class IpAddressesTest {
  @Test
  void canonicalTextIsReturnedItselfAndOtherTextAsANewCanonicalString() {
    String v4 = new String("10.96.0.10");
    String v6 = new String("fd00::1");
    assertSame(v4, IpAddresses.normalize(v4));
    assertSame(v6, IpAddresses.normalize(v6));
    assertEquals("10.1.2.3", IpAddresses.normalize("010.001.002.003"));
    assertEquals("fd00::1", IpAddresses.normalize("FD00:0::1"));
  }

  /** The shortcut for text already canonical answers as parsing and formatting it would, on any text. */
  @Test
  void canonicalIPv4ShortcutAgreesWithParsingAndFormatting() {
    java.util.Random random = new java.util.Random(11);
    String alphabet = "0123456789.0125.a:";
    java.util.List<String> samples = new java.util.ArrayList<>(java.util.List.of("0.0.0.0", "255.255.255.255",
        "256.1.1.1", "1.2.3", "1.2.3.4.", ".1.2.3.4", "1..2.3", "01.2.3.4", "1.2.3.04", "1.2.3.0", "1.2.3.4.5",
        "1000.1.1.1", "10.96.0.10"));
    for (int n = 0; n < 50_000; n++) {
      StringBuilder t = new StringBuilder();
      for (int len = 1 + random.nextInt(15); len > 0; len--) {
        t.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      samples.add(t.toString());
    }
    for (String t : samples) {
      byte[] parsed = IpAddresses.parse(t);
      boolean canonical = parsed != null && parsed.length == 4 && IpAddresses.format(parsed).equals(t);
      assertEquals(canonical, IpAddresses.isCanonicalIPv4(t), t);
    }
  }

  @Test
  void ipv4IsReadSloppilyAndPrintedCanonically() {
    assertEquals("10.96.0.10", IpAddresses.normalize("10.96.0.10"));
    assertEquals("10.1.2.3", IpAddresses.normalize("010.001.002.003"));
    assertNull(IpAddresses.normalize("10.96.0.256"));
    assertNull(IpAddresses.normalize("10.96.0"));
    assertNull(IpAddresses.normalize(" 10.96.0.1"));
    assertNull(IpAddresses.normalize("example.com"));
    assertNull(IpAddresses.normalize(""));
    assertNull(IpAddresses.normalize(null));
  }

  @Test
  void ipv6IsPrintedAsGoDoes() {
    assertEquals("fd00:10:96::1", IpAddresses.normalize("fd00:0010:0096:0000:0000:0000:0000:0001"));
    assertEquals("::1", IpAddresses.normalize("::1"));
    assertEquals("::", IpAddresses.normalize("::"));
    assertEquals("fd00:0:1:0:1::1", IpAddresses.normalize("fd00:0:1:0:1:0:0:1"));
    assertEquals("1:0:1:0:1:0:1:0", IpAddresses.normalize("1:0:1:0:1:0:1:0"));
    assertEquals("fd00:0:0:a::1", IpAddresses.normalize("fd00:0:0:a:0:0:0:1"));
    assertEquals("fd00::a:0:0:1", IpAddresses.normalize("fd00:0:0:0:a:0:0:1"));
    assertEquals("1.2.3.4", IpAddresses.normalize("::ffff:1.2.3.4"));
    assertNull(IpAddresses.normalize("fd00::1%eth0"));
    assertNull(IpAddresses.normalize("fd00:::1"));
  }

  @Test
  void cidrsAreNormalisedToTheirNetwork() {
    assertEquals("10.0.0.0/24", IpAddresses.normalizeCidr("10.0.0.5/24"));
    assertEquals("0.0.0.0/0", IpAddresses.normalizeCidr("1.2.3.4/0"));
    assertEquals("192.168.1.1/32", IpAddresses.normalizeCidr("192.168.1.1/32"));
    assertEquals("fd00:10:244::/64", IpAddresses.normalizeCidr("fd00:10:244::17/64"));
    assertNull(IpAddresses.normalizeCidr("10.0.0.0/33"));
    assertNull(IpAddresses.normalizeCidr("10.0.0.0"));
    assertNull(IpAddresses.normalizeCidr("10.0.0.0/"));
    assertNull(IpAddresses.normalizeCidr("10.0.0.0/-1"));
    assertEquals(IpFamily.IPv6, IpAddresses.cidrFamily("::/0"));
  }

  @Test
  void loopback() {
    assertTrue(IpAddresses.isLoopback("127.0.0.1"));
    assertTrue(IpAddresses.isLoopback("127.5.0.1"));
    assertTrue(IpAddresses.isLoopback("::1"));
    assertFalse(IpAddresses.isLoopback("10.0.0.1"));
    assertFalse(IpAddresses.isLoopback("::2"));
  }

  @Test
  void ipv4IsParsedIntoAnArrayAtAnOffset() {
    byte[] out = new byte[8];
    assertTrue(IpAddresses.parseIPv4("10.96.0.255", out, 4));
    org.junit.jupiter.api.Assertions.assertArrayEquals(new byte[] {0, 0, 0, 0, 10, 96, 0, (byte) 255}, out);
    assertTrue(IpAddresses.parseIPv4("010.1.2.3", out, 0), "leading zeros read as decimal, as upstream");
    assertEquals(10, out[0]);
    assertFalse(IpAddresses.parseIPv4("10.0.0", out, 0));
    assertFalse(IpAddresses.parseIPv4("10.0.0.256", out, 0));
    assertFalse(IpAddresses.parseIPv4("10.0.0.1.2", out, 0));
    assertFalse(IpAddresses.parseIPv4("::1", out, 0));
    assertFalse(IpAddresses.parseIPv4("", out, 0));
  }
}
