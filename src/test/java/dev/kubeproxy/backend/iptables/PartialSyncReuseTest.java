package dev.kubeproxy.backend.iptables;

import static dev.kubeproxy.backend.iptables.Fixtures.clusterCidr;
import static dev.kubeproxy.backend.iptables.Fixtures.options;
import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.ModelFixtures.StateBuilder;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * What a partial sync carries over from the one before: the service ports' order (merged with
 * the changed ones, never sorted again whole) and the text chunks of its input. Either would show
 * here as a partial input that differs from what a fresh generator writes for the same state.
 */
@Unit
class PartialSyncReuseTest {
  static final RulesetOptions V4 = options(IpFamily.IPv4, clusterCidr("10.244.0.0/16"));
  static final int SERVICES = 2000;

  /** Service i, with endpoint generation g (a new address per generation). */
  private static final class Cluster {
    final TreeMap<Integer, Integer> generation = new TreeMap<>();

    ProxyState stateOf(Set<Integer> changed) {
      StateBuilder b = state();
      for (var e : generation.entrySet()) {
        int i = e.getKey();
        int g = e.getValue();
        b.add(svc(name(i), "10.96." + (i / 250) + "." + (i % 250), 80),
            ready("10.244." + (g % 250) + "." + (i % 250), 8080, false));
      }
      for (int i : changed) {
        b.changed(name(i));
      }
      return b.build();
    }

    /** Services 0 to n - 1, each with its first endpoint. */
    static Cluster ofSize(int n) {
      Cluster cluster = new Cluster();
      for (int i = 0; i < n; i++) {
        cluster.generation.put(i, 0);
      }
      return cluster;
    }

    static ServicePortName name(int i) {
      // Namespaces spread over the order, so that added ports land between kept ones.
      return spn("ns-" + (i * 7919 % 97), "svc-" + i, "http", "TCP");
    }
  }

  @Test
  void aPartialSyncWritesWhatAFreshGeneratorWritesThroughAddsDeletesAndChanges() {
    Cluster cluster = Cluster.ofSize(SERVICES);
    RulesetGenerator reused = new RulesetGenerator();
    Ruleset first = reused.generate(V4, cluster.stateOf(Set.of()), true, List.of());
    reused.release(first, true, true);
    Set<String> applied = first.activeNatChains();

    for (int round = 1; round <= 6; round++) {
      Set<Integer> changed = new java.util.HashSet<>();
      for (int k = 0; k < 15; k++) { // endpoints replaced
        int i = (round * 131 + k * 37) % SERVICES;
        if (cluster.generation.containsKey(i)) {
          cluster.generation.merge(i, 1, Integer::sum);
          changed.add(i);
        }
      }
      int deleted = (round * 53) % SERVICES;
      cluster.generation.remove(deleted);
      changed.add(deleted);
      int created = SERVICES + round;
      cluster.generation.put(created, 0);
      changed.add(created);

      ProxyState state = cluster.stateOf(changed);
      Set<String> before = Set.copyOf(applied);
      Ruleset partial = reused.generate(V4, state, false, applied);
      String text = partial.payload();
      Ruleset fresh = new RulesetGenerator().generate(V4, state, true, List.of());

      assertEquals(lines(fresh.payload(), "-A KUBE-SERVICES "), lines(text, "-A KUBE-SERVICES "),
          "round " + round + ": every port's cluster-IP rule, in the order a full sort gives");
      assertTrue(text.contains("-X " + new ChainNameCache().of(Cluster.name(deleted)).svc() + "\n"),
          "round " + round + ": the deleted service's chain is deleted");
      Set<String> gone = new java.util.TreeSet<>(before);
      gone.removeAll(fresh.activeNatChains());
      assertEquals(List.copyOf(gone), lines(text, "-X ").stream().map(l -> l.substring(3)).toList(),
          "round " + round + ": exactly the chains of replaced endpoints and deleted services are deleted");
      assertEquals(fresh.activeNatChains(), partial.activeNatChains());
      applied = partial.activeNatChains();
      reused.release(partial, false, true);
    }
  }

  @Test
  void aPartialSyncsChunksServeTheNextOneAndAFullSyncsAreLetGo() {
    Cluster cluster = Cluster.ofSize(SERVICES);
    RulesetGenerator generator = new RulesetGenerator();
    RulesetGenerator unpooled = new RulesetGenerator(); // the same inputs, never released
    SpareChunks spare = generator.spareChunks();
    ProxyState initial = cluster.stateOf(Set.of());
    Ruleset full = generator.generate(V4, initial, true, List.of());
    unpooled.generate(V4, initial, true, List.of());
    generator.release(full, true, true);
    assertEquals(0, spare.count(), "a full sync's input is not kept");
    assertEquals(0, full.text().length(), "released");

    cluster.generation.merge(5, 1, Integer::sum);
    ProxyState second = cluster.stateOf(Set.of(5));
    Ruleset partial = generator.generate(V4, second, false, List.of());
    unpooled.generate(V4, second, false, List.of());
    int length = partial.text().length();
    assertTrue(length > 2 * 65536, "the input spans several chunks: " + length);
    generator.release(partial, false, true);
    int kept = spare.count();
    assertTrue(kept >= length / 65536, "kept " + kept + " chunks of a " + length + "-byte input");

    cluster.generation.merge(6, 1, Integer::sum);
    ProxyState third = cluster.stateOf(Set.of(6));
    Ruleset again = generator.generate(V4, third, false, List.of());
    assertTrue(spare.count() < kept, "the next input is written into the kept chunks");
    assertEquals(unpooled.generate(V4, third, false, List.of()).payload(), again.payload());
  }

  @Test
  void theSparesAreWhatTheLastPartialSyncTookAndNoneAfterAFullOne() {
    SpareChunks spare = new SpareChunks();
    List<byte[]> big = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      big.add(spare.take(65536));
    }
    big.forEach(spare::giveBack);
    spare.afterSync(false);
    assertEquals(20, spare.count());
    byte[] reused = spare.take(65536);
    assertTrue(big.contains(reused), "a spare chunk is taken before a new one is made");
    spare.giveBack(reused);
    spare.afterSync(false);
    assertEquals(1, spare.count(), "an unusually large input's chunks are not kept for good");
    spare.afterSync(true);
    assertEquals(0, spare.count());
  }

  private static List<String> lines(String payload, String prefix) {
    List<String> out = new ArrayList<>();
    for (String line : payload.split("\n")) {
      if (line.startsWith(prefix)) {
        out.add(line);
      }
    }
    return out;
  }
}
