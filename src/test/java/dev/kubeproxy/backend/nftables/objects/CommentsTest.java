package dev.kubeproxy.backend.nftables.objects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.kubeproxy.testutil.tier.Unit;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

@Unit
class CommentsTest {
  @Test
  void nothingAnNftStringCannotCarry() {
    assertEquals("inj'?add rule ip kube-proxy x drop?#", Comments.fit("inj\"\nadd rule ip kube-proxy x drop\r#"));
    assertEquals("tab?del?", Comments.fit("tab\tdel\u007f"));
    String plain = "default/web:http";
    assertSame(plain, Comments.fit(plain));
    assertNull(Comments.fit(null));
  }

  @Test
  void cutToTheKernelsLimitOnACharacterBoundary() {
    String longName = "ns-".repeat(30) + "x" + "é".repeat(40); // 91 bytes, then 2 bytes a character
    String fitted = Comments.fit(longName);
    assertTrue(fitted.getBytes(StandardCharsets.UTF_8).length <= 128);
    assertTrue(longName.startsWith(fitted));
    assertEquals(127, fitted.getBytes(StandardCharsets.UTF_8).length, "an é is never split");
  }
}
