package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.testutil.tier.Unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

@Unit
class RestoreTextTest {
  /** A text longer than several chunks, with lines of varying length so they straddle chunk ends. */
  private static String lines(int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append("-A KUBE-SEP-").append(i).append(" -j DNAT --to-destination 10.0.").append(i % 250).append(".1:80\n");
    }
    return sb.toString();
  }

  @Test
  void holdsTextAcrossChunksAndFindsLinesAtTheirBoundaries() {
    String s = lines(20_000);
    RestoreText text = RestoreText.of(s);
    assertEquals(s.length(), text.length());
    assertEquals(s, text.toString());
    for (int at = 0, n = 0; n < 5_000; n++) {
      assertEquals(s.indexOf('\n', at), text.indexOf('\n', at));
      assertEquals(s.charAt(at), text.charAt(at));
      assertTrue(text.startsWith("-A KUBE-SEP-", at));
      at = s.indexOf('\n', at) + 1;
    }
    assertEquals(-1, text.indexOf('#', 0));
    assertEquals(s.substring(65_530, 65_550), text.substring(65_530, 65_550));
    assertFalse(text.regionMatches(s.length() - 2, "xyz", 0, 3));
  }

  @Test
  void drainingMovesTheTextAndEmptiesTheSource() {
    String s = lines(5_000);
    RestoreText head = RestoreText.of("*nat\n");
    RestoreText body = RestoreText.of(s);
    head.drain(body).append("COMMIT\n");
    assertEquals("*nat\n" + s + "COMMIT\n", head.toString());
    assertEquals(0, body.length());
  }

  @Test
  void aCharBeyondLatin1BecomesAQuestionMarkNeverAnotherChar() {
    // U+010A's low byte is '\n': stored as is it would split a rule in two
    assertEquals("a?b\u00e9", RestoreText.of("a\u010Ab\u00e9").toString());
  }
}
