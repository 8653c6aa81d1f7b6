package dev.kubeproxy.backend.iptables;

import static dev.kubeproxy.backend.iptables.Fixtures.options;
import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kubeproxy.backend.netfilter.IptablesTool;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The input as sent to iptables-restore: the generator's lines in iptables-save's order, built
 * from what its buffers recorded as they wrote (declarations by name, each chain's rules in a
 * row in name order, deletions last), mapped back to the generated numbering.
 */
@Unit
class SaveOrderTest {

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
      -A KUBE-SERVICES -j KUBE-NODEPORTS
      COMMIT
      """;

  @Test
  void declarationsAndEachChainsRulesComeInNameOrderWithDeletionsLast() {
    RestoreAssembly input = written(INPUT);
    assertEquals(INPUT, input.text().toString());
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
        -A KUBE-SERVICES -j KUBE-NODEPORTS
        -A KUBE-SVC-A -m statistic --mode random --probability 0.5 -j KUBE-SEP-Y
        -A KUBE-SVC-A -j KUBE-SEP-Z
        -A KUBE-SVC-B -j KUBE-SEP-Z
        -X KUBE-SVC-OLD
        -X KUBE-SEP-OLD
        COMMIT
        """, input.sent().input().toString());
  }

  /** The generator's own input, full and partial, with stale chains: sent in the order a plain sort gives. */
  @Test
  void theGeneratorsInputIsSentInSaveOrder() {
    RulesetGenerator generator = new RulesetGenerator();
    RulesetOptions options = options(IpFamily.IPv4, Fixtures.clusterCidr("10.244.0.0/16"));
    for (Ruleset ruleset : List.of(
        generator.generate(options, services(false), true, List.of()),
        generator.generate(options, services(true), false, List.of("KUBE-SVC-OLD0000000000000",
            "KUBE-SEP-OLD0000000000000")))) {
      String sent = ruleset.sent().input().toString();
      assertEquals(saveOrder(ruleset.payload()), sent);
      assertNotEquals(ruleset.payload(), sent);
    }
  }

  @Test
  void eachLineSentMapsBackToTheSameLineOfTheInput() {
    Ruleset ruleset = new RulesetGenerator().generate(options(IpFamily.IPv4, Fixtures.clusterCidr("10.244.0.0/16")),
        services(false), true, List.of("KUBE-SVC-OLD0000000000000"));
    SentInput input = ruleset.sent();
    String[] own = ruleset.payload().split("\n");
    String[] sent = input.input().toString().split("\n");
    assertEquals(own.length, sent.length);
    for (int line = 1; line <= sent.length; line++) {
      assertEquals(sent[line - 1], own[input.originalLine(line) - 1], "line " + line);
    }
    assertEquals(0, input.originalLine(0)); // the tool named no line
    String[] sortedOwn = own.clone();
    String[] sortedSent = sent.clone();
    Arrays.sort(sortedOwn);
    Arrays.sort(sortedSent);
    assertEquals(Arrays.asList(sortedOwn), Arrays.asList(sortedSent));
  }

  @Test
  void aTableWhoseRunsDoNotAllowItIsSentAsWritten() {
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
    String aLineOutsideAnyRun = """
        *filter
        :KUBE-B - [0:0]
        :KUBE-A - [0:0]
        -A KUBE-B -j ACCEPT
        -I KUBE-B 1 -j DROP
        COMMIT
        """;
    String firstLinesOutsideAnyRun = """
        *filter
        :KUBE-B - [0:0]
        :KUBE-A - [0:0]
        -I KUBE-B 1 -j DROP
        -I KUBE-A 1 -j DROP
        -A KUBE-B -j ACCEPT
        COMMIT
        """;
    for (String input : new String[] {declaredTwice, ruleOfAChainNotDeclared, aLineOutsideAnyRun,
        firstLinesOutsideAnyRun}) {
      assertEquals(input, written(input).sent().input().toString());
    }
    // Only that table: the one after it is still reordered.
    String both = ruleOfAChainNotDeclared + "*filter\n:KUBE-B - [0:0]\n:KUBE-A - [0:0]\nCOMMIT\n";
    assertEquals(ruleOfAChainNotDeclared + "*filter\n:KUBE-A - [0:0]\n:KUBE-B - [0:0]\nCOMMIT\n",
        written(both).sent().input().toString());
  }

  @Test
  void theRefusedLineIsReportedInTheInputsOwnNumbering() {
    SentInput input = written(INPUT).sent();
    // Line 13 as sent is "-A KUBE-SEP-Y ..."; in the input's own order it is line 19.
    IptablesTool.RestoreException sent = new IptablesTool.RestoreException(
        "iptables-restore failed (exit status 2): line 13 failed", 13, "-A KUBE-SEP-Y -j DNAT --to-destination 10.244.0.8:80");
    IptablesTool.RestoreException own = sent.renumbered(input::originalLine);
    assertEquals(19, own.lineNumber());
    assertEquals("-A KUBE-SEP-Y -j DNAT --to-destination 10.244.0.8:80", INPUT.split("\n")[18]);
    assertEquals("iptables-restore failed (exit status 2): line 13 failed; failing input line 19 (line 13 as sent,"
        + " chains in name order): -A KUBE-SEP-Y -j DNAT --to-destination 10.244.0.8:80", own.getMessage());
  }

  /** As the tool reads it: in chunks (any size), each chunk the same chars as the whole. */
  @Test
  void theInputAsSentReadsTheSameInChunksAndByChar() {
    CharSequence input = written(INPUT).sent().input();
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
    assertThrows(IndexOutOfBoundsException.class, () -> input.subSequence(3, 2));
    assertThrows(IndexOutOfBoundsException.class, () -> input.charAt(input.length()));
  }

  @Test
  void anInputWhoseLinesStayWhereTheyAreIsHandedOverAsItIs() {
    RestoreAssembly input = written("""
        *nat
        :KUBE-A - [0:0]
        :KUBE-B - [0:0]
        -A KUBE-A -j KUBE-B
        COMMIT
        """);
    assertSame(input.text(), input.sent().input());
  }

  /** What the rules monitor checks: the rules written in each top-level chain, partial syncs included. */
  @Test
  void topLevelRuleCountsAreTheRulesWrittenInEachTopLevelChain() {
    RulesetGenerator generator = new RulesetGenerator();
    RulesetOptions options = options(IpFamily.IPv4, Fixtures.clusterCidr("10.244.0.0/16"));
    for (Ruleset ruleset : List.of(generator.generate(options, services(false), true, List.of()),
        generator.generate(options, services(true), false, List.of("KUBE-SVC-OLD0000000000000")))) {
      assertEquals(Map.of("filter", counted(ruleset.payload(), "filter", ChainNames.FILTER_TOP_LEVEL),
          "nat", counted(ruleset.payload(), "nat", ChainNames.NAT_TOP_LEVEL)), ruleset.topLevelRules());
    }
    Map<String, Integer> nat = generator.generate(options, services(false), true, List.of()).topLevelRules().get("nat");
    assertEquals(3 + 1, nat.get(ChainNames.KUBE_SERVICES)); // three cluster IPs and the NodePort rule
    assertEquals(3, nat.get(ChainNames.KUBE_POSTROUTING));
  }

  /** Three Services; the second one changed when partial. */
  private static ProxyState services(boolean secondChanged) {
    var state = state();
    for (int i = 0; i < 3; i++) {
      state.add(svc(spn("demo", "svc-" + i, "http", "TCP"), "10.96.0." + (10 + i), 80),
          ready("10.244.1." + (10 + i), 8080, true), ready("10.244.2." + (10 + i), 8080, false));
    }
    if (secondChanged) {
      state.changed(spn("demo", "svc-1", "http", "TCP"));
    }
    return state.build();
  }

  /** The input written through the generator's buffers, a table at a time (test inputs only). */
  private static RestoreAssembly written(String input) {
    RestoreAssembly out = new RestoreAssembly(new SpareChunks());
    LineBuffer chains = null;
    LineBuffer rules = null;
    String table = null;
    for (String line : input.split("\n")) {
      if (line.startsWith("*")) {
        table = line.substring(1);
        chains = LineBuffer.create(new SpareChunks());
        rules = LineBuffer.create(new SpareChunks());
      } else if (line.equals("COMMIT")) {
        out.table(table, chains, rules);
      } else if (line.startsWith(":")) {
        chains.chainLine(line.substring(1, line.indexOf(' ')));
      } else if (line.startsWith("-A ")) {
        String[] parts = line.split(" ", 4);
        rules.rule(parts[1]).t(parts[2] + " " + parts[3]).end();
      } else if (line.startsWith("-X ")) {
        rules.deletion(line.substring(3));
      } else {
        rules.t(line).end();
      }
    }
    return out;
  }

  /** A plain sort of a generated input into iptables-save's order: the oracle for the generator's runs. */
  private static String saveOrder(String payload) {
    StringBuilder out = new StringBuilder();
    List<String> declarations = new ArrayList<>();
    Map<String, List<String>> rules = new java.util.TreeMap<>();
    List<String> deletions = new ArrayList<>();
    for (String line : payload.split("\n")) {
      if (line.startsWith(":")) {
        declarations.add(line);
      } else if (line.startsWith("-A ")) {
        rules.computeIfAbsent(line.split(" ")[1], k -> new ArrayList<>()).add(line);
      } else if (line.startsWith("-X ")) {
        deletions.add(line);
      } else if (line.equals("COMMIT")) {
        declarations.sort(java.util.Comparator.comparing(d -> d.substring(1, d.indexOf(' '))));
        declarations.forEach(d -> out.append(d).append('\n'));
        rules.values().forEach(r -> r.forEach(l -> out.append(l).append('\n')));
        deletions.forEach(d -> out.append(d).append('\n'));
        out.append(line).append('\n');
        declarations.clear();
        rules.clear();
        deletions.clear();
      } else {
        out.append(line).append('\n');
      }
    }
    return out.toString();
  }

  /** The -A lines of each chain in a table of the text. */
  private static Map<String, Integer> counted(String payload, String table, List<String> chains) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    chains.forEach(c -> counts.put(c, 0));
    String current = null;
    for (String line : payload.split("\n")) {
      if (line.startsWith("*")) {
        current = line.substring(1);
      } else if (table.equals(current) && line.startsWith("-A ") && counts.containsKey(line.split(" ")[1])) {
        counts.merge(line.split(" ")[1], 1, Integer::sum);
      }
    }
    return counts;
  }
}
