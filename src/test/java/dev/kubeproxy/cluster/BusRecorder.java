package dev.kubeproxy.cluster;

import dev.kubeproxy.messages.ClusterEvent;

import dev.kubeproxy.messages.EventBusCodecs;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.ClusterEvent.Kind;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * Test helper: listens on every cluster.* address and keeps the state a receiver would build
 * from upserts and deletes, the SYNCED kinds, node eligibility and fatal messages.
 */
final class BusRecorder {
  final Map<Kind, Map<String, Object>> state = new ConcurrentHashMap<>();
  final List<ClusterEvent<?>> events = Collections.synchronizedList(new ArrayList<>());
  final Set<Kind> synced = ConcurrentHashMap.newKeySet();
  /** For each kind, the keys present when its SYNCED arrived. */
  final Map<Kind, Set<String>> keysAtSync = new ConcurrentHashMap<>();
  final List<Boolean> eligibility = Collections.synchronizedList(new ArrayList<>());
  final List<String> fatal = Collections.synchronizedList(new ArrayList<>());



  BusRecorder(Vertx vertx) {
    EventBusCodecs.register(vertx);
    for (Kind k : Kind.values()) {
      state.put(k, new ConcurrentHashMap<>());
      vertx.eventBus().<ClusterEvent<?>>consumer(ClusterEventSink.address(k), m -> {
        ClusterEvent<?> e = m.body();
        events.add(e);
        if (e.type() == ClusterEvent.Type.UPSERT) {
          state.get(e.kind()).put(e.key(), e.current());
        } else {
          state.get(e.kind()).remove(e.key());
        }
      });
    }
    vertx.eventBus().<Kind>consumer(EventBusAddresses.SYNCED, m -> {
      keysAtSync.put(m.body(), Set.copyOf(state.get(m.body()).keySet()));
      synced.add(m.body());
    });
    vertx.eventBus().<Boolean>consumer(EventBusAddresses.NODE_ELIGIBLE, m -> eligibility.add(m.body()));
    vertx.eventBus().<String>consumer(EventBusAddresses.FATAL, m -> fatal.add(m.body()));
  }

  Set<String> keys(Kind kind) {
    return Set.copyOf(state.get(kind).keySet());
  }

  static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
      }
      Thread.sleep(20);
    }
  }
}
