package dev.kubeproxy.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import org.junit.jupiter.api.Test;

@Unit
class NameFormatsTest {

  /** The names' and labels' checks are upstream's regular expressions (validation.go), written out: the same answers. */
  @Test
  void dns1123ChecksAnswerAsUpstreamsRegularExpressions() {
    java.util.regex.Pattern label = java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    java.util.regex.Pattern dns1035 = java.util.regex.Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
    java.util.regex.Pattern namePart = java.util.regex.Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
    java.util.regex.Pattern subdomain =
        java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    java.util.Random random = new java.util.Random(7);
    String alphabet = "ab9-.Z_/";
    List<String> samples = new java.util.ArrayList<>(List.of("", "a", "-", ".", "a.", ".a", "a..b", "a-.b", "node-1",
        "ip-10-0-0-1.ec2.internal", "a".repeat(63), "a".repeat(64), "9a", "a/b", "/a", "a/",
        "example.com/" + "B".repeat(63), "example.com/" + "B".repeat(64), "Ex.com/b", ("a".repeat(63) + ".").repeat(4) + "a"));
    for (int n = 0; n < 20_000; n++) {
      StringBuilder b = new StringBuilder();
      for (int len = random.nextInt(9); len > 0; len--) {
        b.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      samples.add(b.toString());
    }
    for (String v : samples) {
      assertEquals(!v.isEmpty() && v.length() <= 63 && label.matcher(v).matches(), NameFormats.isDns1123Label(v), v);
      assertEquals(!v.isEmpty() && v.length() <= 253 && subdomain.matcher(v).matches(),
          NameFormats.isDns1123Subdomain(v), v);
      assertEquals(!v.isEmpty() && v.length() <= 63 && dns1035.matcher(v).matches(), NameFormats.isDns1035Label(v), v);
      boolean namePartOk = v.length() <= 63 && namePart.matcher(v).matches();
      assertEquals(v.isEmpty() || namePartOk, NameFormats.isLabelValue(v), v);
      int slash = v.indexOf('/');
      String name = v.substring(slash + 1);
      boolean prefixOk = slash < 0 || (slash <= 253 && subdomain.matcher(v.substring(0, slash)).matches());
      assertEquals(name.length() <= 63 && namePart.matcher(name).matches() && prefixOk,
          NameFormats.isQualifiedName(v), v);
    }
  }
}
