package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.TableReader;
import dev.kubeproxy.backend.nftables.objects.TableVisitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

@Unit
class TableReadAheadTest {

  /** Records what it is handed, one line per call. */
  static final class Recorder implements TableVisitor {
    final List<String> seen = new ArrayList<>();

    @Override
    public void chain(String name) {
      seen.add("chain " + name);
    }

    @Override
    public void container(String name, boolean map) {
      seen.add((map ? "map " : "set ") + name);
    }

    @Override
    public void element(char[] forms, int keyStart, int keyEnd, int end) {
      seen.add("element " + new String(forms, keyStart, keyEnd - keyStart) + " " + new String(forms, keyEnd, end - keyEnd));
    }

    @Override
    public void endContainer(String name) {
      seen.add("end " + name);
    }

    @Override
    public void rule(String chain, String form) {
      seen.add("rule " + chain + " " + form);
    }
  }

  private final TableReadAhead.Batches batches = new TableReadAhead.Batches();

  /** A reader of one set of this many elements (between a chain and a rule), that says when it has read them all. */
  private static TableReader oneSet(int elements, CountDownLatch allRead) {
    return new FormlessReader() {
      @Override
      public <V extends TableVisitor> Optional<V> read(Supplier<V> visitors) {
        V v = visitors.get();
        v.chain("services");
        v.container("cluster-ips", false);
        char[] forms = new char[32];
        for (int i = 0; i < elements; i++) {
          String key = "k" + i;
          String form = "f" + i;
          key.getChars(0, key.length(), forms, 3); // the visit's chars are the reader's, reused
          form.getChars(0, form.length(), forms, 3 + key.length());
          v.element(forms, 3, 3 + key.length(), 3 + key.length() + form.length());
          forms[3] = '!';
        }
        allRead.countDown();
        v.endContainer("cluster-ips");
        v.rule("services", "r1");
        return Optional.of(v);
      }
    };
  }

  @Test
  void handsOverTheWholeReadInOrderAcrossBatches() throws Exception {
    int elements = 5_000; // many batches
    try (TableReadAhead ahead = TableReadAhead.start(oneSet(elements, new CountDownLatch(1)), "test-read", batches)) {
      Recorder r = ahead.read(Recorder::new).orElseThrow();
      assertEquals(elements + 4, r.seen.size());
      assertEquals("chain services", r.seen.get(0));
      assertEquals("set cluster-ips", r.seen.get(1));
      assertEquals("element k0 f0", r.seen.get(2));
      assertEquals("element k4999 f4999", r.seen.get(elements + 1));
      assertEquals("end cluster-ips", r.seen.get(elements + 2));
      assertEquals("rule services r1", r.seen.get(elements + 3));
    }
  }

  @Test
  void theReadRunsAWholeLargeSetAheadOfTheCaller() throws Exception {
    CountDownLatch allRead = new CountDownLatch(1);
    int elements = 100_000; // a set at 10,000 Services × 10
    try (TableReadAhead ahead = TableReadAhead.start(oneSet(elements, allRead), "test-read", batches)) {
      assertTrue(allRead.await(20, TimeUnit.SECONDS), "the reader blocked before the caller took anything");
      Recorder r = ahead.read(Recorder::new).orElseThrow();
      assertEquals(elements + 4, r.seen.size());
      assertEquals("element k99999 f99999", r.seen.get(elements + 1));
    }
  }

  @Test
  void laterReadsReuseTheBatchesOfTheFirst() throws Exception {
    CountDownLatch allRead = new CountDownLatch(1);
    try (TableReadAhead ahead = TableReadAhead.start(oneSet(5_000, allRead), "test-read", batches)) {
      assertTrue(allRead.await(20, TimeUnit.SECONDS));
      ahead.read(Recorder::new).orElseThrow(); // the whole read waited: every batch it takes was made
    }
    int whole = batches.made();
    assertTrue(whole >= 2, "5,000 visits take several batches: " + whole);
    for (int read = 0; read < 3; read++) {
      try (TableReadAhead ahead = TableReadAhead.start(oneSet(5_000, new CountDownLatch(1)), "test-read", batches)) {
        assertEquals(5_004, ahead.read(Recorder::new).orElseThrow().seen.size());
      }
    }
    assertEquals(whole, batches.made(), "reads like the first need no new batch");
  }

  @Test
  void aReadThatStartedOverReachesAFreshVisitorWithTheLastAttemptOnly() throws Exception {
    TableReader reader = new FormlessReader() {
      @Override
      public <V extends TableVisitor> Optional<V> read(Supplier<V> visitors) {
        V first = visitors.get();
        for (int i = 0; i < 5_000; i++) { // more than a batch: some of it is handed over
          first.chain("stale-" + i); // the table changed under this attempt
        }
        V second = visitors.get();
        second.chain("services");
        return Optional.of(second);
      }
    };
    List<Recorder> made = new ArrayList<>();
    try (TableReadAhead ahead = TableReadAhead.start(reader, "test-read", batches)) {
      Recorder r = ahead.read(() -> {
        Recorder fresh = new Recorder();
        made.add(fresh);
        return fresh;
      }).orElseThrow();
      assertEquals(List.of("chain services"), r.seen);
      assertEquals(2, made.size());
    }
  }

  @Test
  void noTableIsEmptyAndAFailureIsTheReadersOwn() throws Exception {
    TableReader absent = new FormlessReader() {
      @Override
      public <V extends TableVisitor> Optional<V> read(Supplier<V> visitors) {
        return Optional.empty();
      }
    };
    try (TableReadAhead ahead = TableReadAhead.start(absent, "test-read", batches)) {
      assertFalse(ahead.read(Recorder::new).isPresent());
    }
    TableReader failing = new FormlessReader() {
      @Override
      public <V extends TableVisitor> Optional<V> read(Supplier<V> visitors) throws NftablesException {
        visitors.get().chain("services");
        throw new NftablesException("netlink: cannot read table ip kube-proxy: EPERM", null);
      }
    };
    try (TableReadAhead ahead = TableReadAhead.start(failing, "test-read", batches)) {
      NftablesException e = assertThrows(NftablesException.class, () -> ahead.read(Recorder::new));
      assertTrue(e.getMessage().contains("EPERM"), e.getMessage());
    }
  }

  @Test
  void closeWithoutReadingLetsTheReaderFinishBeforeItReturns() throws Exception {
    CountDownLatch finished = new CountDownLatch(1);
    TableReader big = new FormlessReader() {
      @Override
      public <V extends TableVisitor> Optional<V> read(Supplier<V> visitors) {
        V v = visitors.get();
        for (int i = 0; i < 200_000; i++) { // far more than the queue holds: the reader blocks until closed
          v.chain("c" + i);
        }
        finished.countDown();
        return Optional.of(v);
      }
    };
    TableReadAhead ahead = TableReadAhead.start(big, "test-read", batches);
    ahead.close(); // as when building the desired table failed
    assertTrue(finished.await(0, TimeUnit.SECONDS), "close returned while the reader still held the socket");
  }
}
