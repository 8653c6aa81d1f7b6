package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.netfilter.IptablesTool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.testutil.tier.Unit;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

@Unit
class RestoreOrderTest {

  private static final String INPUT = """
      *filter
      :KUBE-SERVICES - [0:0]
      :KUBE-FORWARD - [0:0]
      -A KUBE-SERVICES -d 10.96.0.1/32 -j REJECT
      -A KUBE-FORWARD -j ACCEPT
      COMMIT
      *nat
      :KUBE-SERVICES - [0:0]
      :KUBE-SVC-B - [0:0]
      :KUBE-SEP-Z - [0:0]
      :KUBE-SVC-A - [0:0]
      :KUBE-SEP-Y - [0:0]
      -A KUBE-SERVICES -d 10.96.0.2/32 -j KUBE-SVC-B
      -A KUBE-SVC-B -j KUBE-SEP-Z
      -A KUBE-SEP-Z -j DNAT --to-destination 10.244.0.9:80
      -A KUBE-SERVICES -d 10.96.0.1/32 -j KUBE-SVC-A
      -A KUBE-SVC-A -m statistic --mode random --probability 0.5 -j KUBE-SEP-Y
      -A KUBE-SVC-A -j KUBE-SEP-Z
      -A KUBE-SEP-Y -j DNAT --to-destination 10.244.0.8:80
      -X KUBE-SVC-OLD
      -X KUBE-SEP-OLD
      COMMIT
      """;

  @Test
  void declarationsAndEachChainsRulesComeInNameOrderWithDeletionsLast() {
    RestoreOrder order = RestoreOrder.of(INPUT);
    assertEquals("""
        *filter
        :KUBE-FORWARD - [0:0]
        :KUBE-SERVICES - [0:0]
        -A KUBE-FORWARD -j ACCEPT
        -A KUBE-SERVICES -d 10.96.0.1/32 -j REJECT
        COMMIT
        *nat
        :KUBE-SEP-Y - [0:0]
        :KUBE-SEP-Z - [0:0]
        :KUBE-SERVICES - [0:0]
        :KUBE-SVC-A - [0:0]
        :KUBE-SVC-B - [0:0]
        -A KUBE-SEP-Y -j DNAT --to-destination 10.244.0.8:80
        -A KUBE-SEP-Z -j DNAT --to-destination 10.244.0.9:80
        -A KUBE-SERVICES -d 10.96.0.2/32 -j KUBE-SVC-B
        -A KUBE-SERVICES -d 10.96.0.1/32 -j KUBE-SVC-A
        -A KUBE-SVC-A -m statistic --mode random --probability 0.5 -j KUBE-SEP-Y
        -A KUBE-SVC-A -j KUBE-SEP-Z
        -A KUBE-SVC-B -j KUBE-SEP-Z
        -X KUBE-SVC-OLD
        -X KUBE-SEP-OLD
        COMMIT
        """, order.input().toString());
  }

  @Test
  void eachLineSentMapsBackToTheSameLineOfTheInput() {
    RestoreOrder order = RestoreOrder.of(INPUT);
    String[] own = INPUT.split("\n");
    String[] sent = order.input().toString().split("\n");
    assertEquals(own.length, sent.length);
    for (int line = 1; line <= sent.length; line++) {
      assertEquals(sent[line - 1], own[order.originalLine(line) - 1], "line " + line);
    }
    assertEquals(0, order.originalLine(0)); // the tool named no line
    String[] sortedOwn = own.clone();
    String[] sortedSent = sent.clone();
    Arrays.sort(sortedOwn);
    Arrays.sort(sortedSent);
    assertEquals(Arrays.asList(sortedOwn), Arrays.asList(sortedSent));
  }

  @Test
  void aTableWhoseOrderMattersIsLeftAsItIs() {
    String declaredAfterARule = """
        *nat
        :KUBE-SVC-B - [0:0]
        -A KUBE-SVC-B -j KUBE-SEP-Z
        :KUBE-SVC-A - [0:0]
        COMMIT
        """;
    String insertion = """
        *filter
        :KUBE-B - [0:0]
        :KUBE-A - [0:0]
        -A KUBE-B -j ACCEPT
        -I KUBE-B 1 -j DROP
        COMMIT
        """;
    String deletionBeforeARule = """
        *nat
        :KUBE-B - [0:0]
        :KUBE-A - [0:0]
        -X KUBE-OLD
        -A KUBE-B -j ACCEPT
        COMMIT
        """;
    String declaredTwice = """
        *nat
        :KUBE-B - [0:0]
        :KUBE-A - [0:0]
        :KUBE-B - [0:0]
        -A KUBE-B -j ACCEPT
        COMMIT
        """;
    String ruleOfAChainNotDeclared = """
        *nat
        :KUBE-B - [0:0]
        -A KUBE-B -j ACCEPT
        -A KUBE-A -j ACCEPT
        COMMIT
        """;
    for (String input : new String[] {declaredAfterARule, insertion, deletionBeforeARule, declaredTwice,
        ruleOfAChainNotDeclared}) {
      assertEquals(input, RestoreOrder.of(input).input().toString());
    }
    String unterminated = "*nat\n:KUBE-B - [0:0]\n:KUBE-A - [0:0]\nCOMMIT";
    assertEquals(unterminated, RestoreOrder.of(unterminated).input().toString());
    assertEquals(3, RestoreOrder.of(unterminated).originalLine(3));
  }

  @Test
  void commentsBeforeATablesFirstLineAndLinesOutsideTablesStayWhereTheyWere() {
    String input = """
        # generated
        *nat
        # the service chains
        :KUBE-B - [0:0]
        :KUBE-A - [0:0]
        -A KUBE-B -j ACCEPT
        -A KUBE-A -j ACCEPT
        COMMIT
        """;
    assertEquals("""
        # generated
        *nat
        # the service chains
        :KUBE-A - [0:0]
        :KUBE-B - [0:0]
        -A KUBE-A -j ACCEPT
        -A KUBE-B -j ACCEPT
        COMMIT
        """, RestoreOrder.of(input).input().toString());
  }

  @Test
  void theRefusedLineIsReportedInTheInputsOwnNumbering() {
    RestoreOrder order = RestoreOrder.of(INPUT);
    // Line 13 as sent is "-A KUBE-SEP-Y ..."; in the input's own order it is line 19.
    IptablesTool.RestoreException sent = new IptablesTool.RestoreException(
        "iptables-restore failed (exit status 2): line 13 failed", 13, "-A KUBE-SEP-Y -j DNAT --to-destination 10.244.0.8:80");
    IptablesTool.RestoreException own = sent.renumbered(order::originalLine);
    assertEquals(19, own.lineNumber());
    assertEquals("-A KUBE-SEP-Y -j DNAT --to-destination 10.244.0.8:80", INPUT.split("\n")[18]);
    assertEquals("iptables-restore failed (exit status 2): line 13 failed; failing input line 19 (line 13 as sent,"
        + " chains in name order): -A KUBE-SEP-Y -j DNAT --to-destination 10.244.0.8:80", own.getMessage());
  }

  /** As the tool reads it: in chunks (any size), each chunk the same chars as the whole. */
  @Test
  void theReorderedInputReadsTheSameInChunksAndByChar() {
    CharSequence input = RestoreOrder.of(INPUT).input();
    String whole = input.toString();
    assertEquals(INPUT.length(), input.length());
    for (int chunk : new int[] {1, 7, 40, 64, INPUT.length()}) {
      StringBuilder read = new StringBuilder();
      for (int at = 0; at < input.length(); at += chunk) {
        read.append(input.subSequence(at, Math.min(at + chunk, input.length())));
      }
      assertEquals(whole, read.toString(), "chunks of " + chunk);
    }
    StringBuilder byChar = new StringBuilder();
    for (int i = 0; i < input.length(); i++) {
      byChar.append(input.charAt(i));
    }
    assertEquals(whole, byChar.toString());
    assertEquals("", input.subSequence(5, 5).toString());
    org.junit.jupiter.api.Assertions.assertThrows(IndexOutOfBoundsException.class, () -> input.subSequence(3, 2));
    org.junit.jupiter.api.Assertions.assertThrows(IndexOutOfBoundsException.class, () -> input.charAt(input.length()));
  }

  @Test
  void anInputWhoseLinesStayWhereTheyAreIsHandedOverAsItIs() {
    String inOrder = """
        *nat
        :KUBE-A - [0:0]
        :KUBE-B - [0:0]
        -A KUBE-A -j KUBE-B
        COMMIT
        """;
    RestoreText text = RestoreText.of(inOrder);
    org.junit.jupiter.api.Assertions.assertSame(text, RestoreOrder.of(text).input());
  }
}
