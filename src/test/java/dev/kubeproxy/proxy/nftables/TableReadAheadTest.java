package dev.kubeproxy.proxy.nftables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

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
    public void element(String key, String form, Supplier<Element> decoder) {
      seen.add("element " + key + " " + form);
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

  @Test
  void handsOverTheWholeReadInOrderAcrossBatches() throws Exception {
    int elements = 5_000; // many batches
    TableReader reader = new FormlessReader() {
      @Override
      public <V extends TableVisitor> Optional<V> read(Supplier<V> visitors) {
        V v = visitors.get();
        v.chain("services");
        v.container("cluster-ips", false);
        for (int i = 0; i < elements; i++) {
          v.element("k" + i, "f" + i, () -> null);
        }
        v.endContainer("cluster-ips");
        v.rule("services", "r1");
        return Optional.of(v);
      }
    };
    try (TableReadAhead ahead = TableReadAhead.start(reader, "test-read")) {
      Recorder r = ahead.read(Recorder::new).orElseThrow();
      assertEquals(elements + 4, r.seen.size());
      assertEquals("chain services", r.seen.get(0));
      assertEquals("element k4999 f4999", r.seen.get(elements + 1));
      assertEquals("rule services r1", r.seen.get(elements + 3));
    }
  }

  @Test
  void aReadThatStartedOverReachesAFreshVisitorWithTheLastAttemptOnly() throws Exception {
    TableReader reader = new FormlessReader() {
      @Override
      public <V extends TableVisitor> Optional<V> read(Supplier<V> visitors) {
        V first = visitors.get();
        for (int i = 0; i < 1_000; i++) {
          first.chain("stale-" + i); // the table changed under this attempt
        }
        V second = visitors.get();
        second.chain("services");
        return Optional.of(second);
      }
    };
    List<Recorder> made = new ArrayList<>();
    try (TableReadAhead ahead = TableReadAhead.start(reader, "test-read")) {
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
    try (TableReadAhead ahead = TableReadAhead.start(absent, "test-read")) {
      assertFalse(ahead.read(Recorder::new).isPresent());
    }
    TableReader failing = new FormlessReader() {
      @Override
      public <V extends TableVisitor> Optional<V> read(Supplier<V> visitors) throws NftablesException {
        visitors.get().chain("services");
        throw new NftablesException("netlink: cannot read table ip kube-proxy: EPERM", null);
      }
    };
    try (TableReadAhead ahead = TableReadAhead.start(failing, "test-read")) {
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
    TableReadAhead ahead = TableReadAhead.start(big, "test-read");
    ahead.close(); // as when building the desired table failed
    assertTrue(finished.await(0, TimeUnit.SECONDS), "close returned while the reader still held the socket");
  }
}
