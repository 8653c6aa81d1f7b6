package dev.kubeproxy.cluster;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.AgentOptions;
import dev.kubeproxy.config.FeatureGates;
import dev.kubeproxy.cluster.ClusterEvent.Kind;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Caches;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.DiscoveryV1Api;
import io.kubernetes.client.openapi.apis.NetworkingV1beta1Api;
import io.kubernetes.client.openapi.models.V1EndpointSlice;
import io.kubernetes.client.openapi.models.V1EndpointSliceList;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeList;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceList;
import io.kubernetes.client.openapi.models.V1beta1ServiceCIDR;
import io.kubernetes.client.openapi.models.V1beta1ServiceCIDRList;
import io.kubernetes.client.util.CallGenerator;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Upstream's informers (server.md §10 steps 9–11): Services (not headless ones: field selector
 * spec.clusterIP!=None) and EndpointSlices in all namespaces without the service-proxy-name and
 * headless labels, ServiceCIDRs (networking.k8s.io/v1beta1)
 * when MultiCIDRServiceAllocator is on, and the own Node by field selector. Resync period =
 * configSyncPeriod. Handlers only enqueue into the {@link ClusterEventSink}.
 */
final class InformerSource {
  /** Objects for another proxy and headless services' slices are not ours (service-model.md §1). */
  static final String LABEL_SELECTOR = "!service.kubernetes.io/headless,!service.kubernetes.io/service-proxy-name";

  /** Headless Services are not fetched at all (upstream 1.32, #126769): they have no rules. */
  static final String SERVICE_FIELD_SELECTOR = "spec.clusterIP!=None";

  /** One watched kind: its informer and the keys its handler has delivered (for the synced signal). */
  private record Watched(Kind kind, SharedIndexInformer<? extends KubernetesObject> informer, Set<String> delivered) {}

  private final Vertx vertx;
  private final ApiClient client;
  private final AgentOptions options;
  private final ClusterEventSink sink;
  private final List<Watched> watched = new ArrayList<>();
  private final List<BackoffListerWatcher<?, ?>> listerWatchers = new ArrayList<>();
  private final ExecutorService executor;
  private SharedInformerFactory factory;
  private SharedInformerFactory nodeFactory;
  private long syncTimer = -1;

  InformerSource(Vertx vertx, ApiClient client, AgentOptions options, ClusterEventSink sink) {
    this.vertx = vertx;
    this.client = client;
    this.options = options;
    this.sink = sink;
    AtomicInteger n = new AtomicInteger();
    this.executor = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "informer-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  static boolean serviceCidrsEnabled(AgentOptions options) {
    return FeatureGates.of(options.config().featureGates).isEnabled("MultiCIDRServiceAllocator");
  }

  /** Starts every informer; the promise completes once each initial list reached the sink. */
  void start(Promise<Void> allSynced) {
    long resync = options.config().configSyncPeriod == null ? 0 : options.config().configSyncPeriod.toMillis();
    factory = new SharedInformerFactory(client, executor, false);
    nodeFactory = new SharedInformerFactory(client, executor, false);
    CoreV1Api core = new CoreV1Api(client);
    DiscoveryV1Api discovery = new DiscoveryV1Api(client);

    register(factory, Kind.SERVICE, "Services", p -> core.listServiceForAllNamespaces()
        .labelSelector(LABEL_SELECTOR).fieldSelector(SERVICE_FIELD_SELECTOR).resourceVersion(p.resourceVersion).timeoutSeconds(p.timeoutSeconds)
        .watch(p.watch).allowWatchBookmarks(p.watch).buildCall(null), V1Service.class, V1ServiceList.class, resync);
    register(factory, Kind.ENDPOINT_SLICE, "EndpointSlices", p -> discovery.listEndpointSliceForAllNamespaces()
        .labelSelector(LABEL_SELECTOR).resourceVersion(p.resourceVersion).timeoutSeconds(p.timeoutSeconds)
        .watch(p.watch).allowWatchBookmarks(p.watch).buildCall(null), V1EndpointSlice.class, V1EndpointSliceList.class, resync);
    if (serviceCidrsEnabled(options)) {
      NetworkingV1beta1Api networking = new NetworkingV1beta1Api(client);
      register(factory, Kind.SERVICE_CIDR, "ServiceCIDRs", p -> networking.listServiceCIDR()
          .labelSelector(LABEL_SELECTOR).resourceVersion(p.resourceVersion).timeoutSeconds(p.timeoutSeconds)
          .watch(p.watch).allowWatchBookmarks(p.watch).buildCall(null), V1beta1ServiceCIDR.class, V1beta1ServiceCIDRList.class, resync);
    }
    register(nodeFactory, Kind.NODE, "Node " + options.hostname(), p -> core.listNode()
        .fieldSelector("metadata.name=" + options.hostname()).resourceVersion(p.resourceVersion)
        .timeoutSeconds(p.timeoutSeconds).watch(p.watch).allowWatchBookmarks(p.watch).buildCall(null),
        V1Node.class, V1NodeList.class, resync);

    Log.info("Starting service config controller");
    Log.info("Starting endpoint slice config controller");
    if (serviceCidrsEnabled(options)) {
      Log.info("Starting serviceCIDR config controller");
    }
    Log.info("Starting node config controller");
    factory.startAllRegisteredInformers();
    nodeFactory.startAllRegisteredInformers();

    Set<Kind> reported = ConcurrentHashMap.newKeySet();
    syncTimer = vertx.setPeriodic(20, id -> {
      for (Watched w : watched) {
        if (!reported.contains(w.kind) && initialListDelivered(w)) {
          reported.add(w.kind);
          Log.info("Caches are synced", "kind", w.kind);
          sink.synced(w.kind);
        }
      }
      if (reported.size() == watched.size()) {
        vertx.cancelTimer(id);
        syncTimer = -1;
        allSynced.tryComplete();
      }
    });
  }

  /**
   * The informer has processed its first list and our handler has delivered every key in its
   * cache: only then may SYNCED follow the upserts on the bus.
   */
  private static boolean initialListDelivered(Watched w) {
    return w.informer.hasSynced() && w.delivered.containsAll(w.informer.getIndexer().listKeys());
  }

  private <T extends KubernetesObject, L extends KubernetesListObject> void register(
      SharedInformerFactory f, Kind kind, String what, CallGenerator calls, Class<T> type, Class<L> listType, long resync) {
    BackoffListerWatcher<T, L> lw = new BackoffListerWatcher<>(client, what, calls, type, listType,
        (namespace, name, problem) -> sink.undecodable(kind, namespace, name, problem));
    listerWatchers.add(lw);
    SharedIndexInformer<T> informer = f.sharedIndexInformerFor(lw, type, resync, (cls, error) -> {
      // BackoffListerWatcher already logged list and watch failures with the server and cause.
      Log.v(4).info("Informer run failed", "resource", what, "err", String.valueOf(error));
    });
    Set<String> delivered = ConcurrentHashMap.newKeySet();
    informer.addEventHandler(new ResourceEventHandler<T>() {
      @Override
      public void onAdd(T obj) {
        String key = Caches.metaNamespaceKeyFunc(obj);
        sink.upsert(kind, key, obj);
        delivered.add(key);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        onAdd(newObj);
      }

      @Override
      public void onDelete(T obj, boolean finalStateUnknown) {
        String key = Caches.metaNamespaceKeyFunc(obj);
        sink.delete(kind, key, obj);
        delivered.remove(key);
      }
    });
    watched.add(new Watched(kind, informer, delivered));
  }

  void stop() {
    if (syncTimer >= 0) {
      vertx.cancelTimer(syncTimer);
    }
    listerWatchers.forEach(BackoffListerWatcher::stop);
    if (factory != null) {
      factory.stopAllRegisteredInformers(false);
    }
    if (nodeFactory != null) {
      nodeFactory.stopAllRegisteredInformers(false);
    }
    executor.shutdownNow();
  }
}
