package dev.kubeproxy.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kubeproxy.model.objects.ClusterObjects;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.testutil.tier.Unit;
import io.kubernetes.client.informer.cache.Cache;
import io.kubernetes.client.informer.cache.Caches;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The informers' store keeps each object by its own key string and nothing else: no namespace index beside it. */
@Unit
class InformerSourceTest {
  @Test
  void theStoreHasNoNamespaceIndex() {
    Cache<EndpointSlice> cache = InformerSource.unindexedCache();
    EndpointSlice a = ClusterObjects.slice("ns", "a", "web", "IPv4", List.of(), List.of());
    cache.add(a);
    assertSame(a, cache.getByKey("ns/a"));
    assertEquals(List.of("ns/a"), cache.listKeys());
    assertThrows(IllegalArgumentException.class, () -> cache.byIndex(Caches.NAMESPACE_INDEX, "ns"));
  }

  @Test
  void theStoreAndTheEventSinkKeyEachObjectByItsOwnKeyString() {
    Cache<EndpointSlice> cache = InformerSource.unindexedCache();
    EndpointSlice a = ClusterObjects.slice("ns", "a", "web", "IPv4", List.of(), List.of());
    cache.add(a);
    assertSame(a.metadata().key(), cache.listKeys().get(0), "the store's key is the object's");
    assertSame(a.metadata().key(), InformerSource.keyOf(a), "and so is the one delivered to the sink");
    assertEquals("ns/a", a.metadata().key());
  }
}
