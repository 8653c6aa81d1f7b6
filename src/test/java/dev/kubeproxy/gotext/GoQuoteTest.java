package dev.kubeproxy.gotext;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.testutil.tier.Unit;
import org.junit.jupiter.api.Test;

/** Go's strconv.Quote, as fmt's %q prints it. */
@Unit
class GoQuoteTest {
  @Test
  void quotesAsGoDoes() {
    assertEquals("\"30s\"", GoQuote.quote("30s"));
    assertEquals("\"a \\\"b\\\" c:\\\\d\"", GoQuote.quote("a \"b\" c:\\d"));
    assertEquals("\"\\a\\b\\f\\n\\r\\t\\v\"", GoQuote.quote("\u0007\b\f\n\r\t\u000b"));
    assertEquals("\"\\x00\\x1b\\x7f\"", GoQuote.quote("\u0000\u001b\u007f"));
    assertEquals("\"zone-ä\"", GoQuote.quote("zone-ä"));
  }
}
