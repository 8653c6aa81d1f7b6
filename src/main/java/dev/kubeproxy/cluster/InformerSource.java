package dev.kubeproxy.cluster;

import com.fasterxml.jackson.core.JsonParser;
import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.ClusterEvent.Kind;
import dev.kubeproxy.model.objects.ClusterObject;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.model.objects.Node;
import dev.kubeproxy.model.objects.ObjectDecoder;
import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.model.objects.ServiceCidr;
import dev.kubeproxy.logging.Log;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.cache.Cache;
import io.kubernetes.client.informer.cache.Caches;
import io.kubernetes.client.informer.impl.DefaultSharedIndexInformer;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import io.kubernetes.client.util.CallGenerator;
import io.vertx.core.Future;
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
 * Upstream's informers (cmd/kube-proxy/app server.go Run): client-java's shared informers over
 * the lean objects, one per kind of {@link Selection#watched}, with the selectors sent to the API
 * server. Resync period = configSyncPeriod. List and watch answers are decoded item by item by
 * {@link BackoffListerWatcher}; handlers only enqueue into the {@link ClusterEventSink}. The
 * requests are built from the resource paths, not through client-java's generated API classes.
 */
final class InformerSource implements ClusterSource {
  /**
   * One watched kind: its informer and, until its initial list is reported delivered, the keys its
   * handler has delivered (then dropped: one more key per object for the agent's lifetime).
   */
  private static final class Watched {
    final Kind kind;
    final SharedIndexInformer<? extends KubernetesObject> informer;
    volatile Set<String> delivered = ConcurrentHashMap.newKeySet();
    /** The store's keys when the informer first said it had synced, and how many of them are known delivered. */
    private List<String> initialKeys;
    private int checked;

    Watched(Kind kind, SharedIndexInformer<? extends KubernetesObject> informer) {
      this.kind = kind;
      this.informer = informer;
    }

    void delivered(String key, boolean present) {
      Set<String> keys = delivered;
      if (keys != null) {
        if (present) {
          keys.add(key);
        } else {
          keys.remove(key);
        }
      }
    }
  }

  private final Vertx vertx;
  private final ApiClient client;
  private final AgentOptions options;
  private final List<Watched> watched = new ArrayList<>();
  private final List<BackoffListerWatcher<?>> listerWatchers = new ArrayList<>();
  private final ExecutorService executor;
  private final Promise<Void> allSynced = Promise.promise();
  private long syncTimer = -1;

  InformerSource(Vertx vertx, ApiClient client, AgentOptions options) {
    this.vertx = vertx;
    this.client = client;
    this.options = options;
    AtomicInteger n = new AtomicInteger();
    this.executor = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "informer-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  public ApiClient apiClient() {
    return client;
  }

  @Override
  public boolean retryNodeLookup() {
    return true;
  }

  /**
   * GET the Node; failures carry a message naming the server and the cause. Decoded by the lean
   * decoder, which ignores fields newer than this agent.
   */
  @Override
  public Node node(String name) throws Exception {
    okhttp3.Call call = call("/api/v1/nodes/" + client.escapeString(name), List.of());
    try (okhttp3.Response response = execute(call)) {
      if (!response.isSuccessful()) {
        throw ApiClients.failure(response);
      }
      String body = response.body() == null ? "" : response.body().string();
      try (JsonParser p = ItemDecoder.JSON.getFactory().createParser(body)) {
        p.nextToken();
        ObjectDecoder.Decoded<Node> node = ObjectDecoder.NODE.read(p, "");
        if (node.problem() != null) {
          throw new Exception("Node " + name + " does not decode: " + node.problem());
        }
        return node.object();
      }
    } catch (ApiException e) {
      throw new Exception(e.getCode() == 404 ? "nodes \"" + name + "\" not found"
          : ApiClients.describe(client.getBasePath(), e), e);
    }
  }

  private static okhttp3.Response execute(okhttp3.Call call) throws ApiException {
    try {
      return call.execute();
    } catch (java.io.IOException e) {
      throw new ApiException(e); // as client-java's own execute reports a connection failure
    }
  }

  /** A GET of this path with these query parameters. */
  private okhttp3.Call call(String path, List<Pair> query) throws ApiException {
    return ApiClients.call(client, "GET", path, query, null);
  }

  /** The list or watch request of one kind, with its selectors (the field selector as long as the server takes it). */
  private CallGenerator calls(String path, Selection selection, LocalFieldFilter fieldFilter) {
    return p -> {
      List<Pair> query = new ArrayList<>();
      if (!selection.labelSelector().isEmpty()) {
        query.add(new Pair("labelSelector", selection.labelSelector()));
      }
      String fieldSelector = fieldFilter.fieldSelector();
      if (!fieldSelector.isEmpty()) {
        query.add(new Pair("fieldSelector", fieldSelector));
      }
      if (p.resourceVersion != null) {
        query.add(new Pair("resourceVersion", p.resourceVersion));
      }
      if (p.timeoutSeconds != null) {
        query.add(new Pair("timeoutSeconds", p.timeoutSeconds.toString()));
      }
      if (p.watch != null) {
        query.add(new Pair("watch", p.watch.toString()));
        query.add(new Pair("allowWatchBookmarks", p.watch.toString()));
      }
      return call(path, query);
    };
  }

  @Override
  public Future<Void> synced() {
    return Future.succeededFuture();
  }

  /** Starts the informers; they list and watch on their own threads, retrying an unreachable server. */
  @Override
  public Future<Void> start(ClusterEventSink sink) {
    long resync = options.config().configSyncPeriod == null ? 0 : options.config().configSyncPeriod.toMillis();
    for (Selection s : Selection.watched(options)) {
      switch (s.kind()) {
        case SERVICE -> register(sink, s, "Services", "/api/v1/services", "Service", Service.class,
            ObjectDecoder.SERVICE, resync);
        case ENDPOINT_SLICE -> register(sink, s, "EndpointSlices", "/apis/discovery.k8s.io/v1/endpointslices",
            "EndpointSlice", EndpointSlice.class, ObjectDecoder.ENDPOINT_SLICE, resync);
        case SERVICE_CIDR -> register(sink, s, "ServiceCIDRs", "/apis/networking.k8s.io/v1/servicecidrs",
            "ServiceCIDR", ServiceCidr.class, ObjectDecoder.SERVICE_CIDR, resync);
        case NODE -> register(sink, s, "Node " + options.hostname(), "/api/v1/nodes", "Node", Node.class,
            ObjectDecoder.NODE, resync);
      }
    }
    Log.info("Starting service config controller");
    Log.info("Starting endpoint slice config controller");
    Log.info("Starting serviceCIDR config controller");
    Log.info("Starting node config controller");
    for (Watched w : watched) {
      executor.submit(w.informer::run);
    }

    Set<Kind> reported = ConcurrentHashMap.newKeySet();
    syncTimer = vertx.setPeriodic(20, id -> {
      for (Watched w : watched) {
        if (!reported.contains(w.kind) && initialListDelivered(w)) {
          reported.add(w.kind);
          w.delivered = null;
          w.initialKeys = List.of();
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
    return Future.succeededFuture();
  }

  /**
   * The informer has processed its first list and our handler has delivered every key its store
   * held then (or the key is gone since): only then may SYNCED follow the upserts on the bus. The
   * keys are taken once and each is passed once, not listed and compared again on every tick: at
   * the largest clusters that copying took the event loop's CPU while the lists were delivered.
   */
  private static boolean initialListDelivered(Watched w) {
    if (w.initialKeys == null) {
      if (!w.informer.hasSynced()) {
        return false;
      }
      w.initialKeys = w.informer.getIndexer().listKeys();
    }
    while (w.checked < w.initialKeys.size()) {
      String key = w.initialKeys.get(w.checked);
      if (!w.delivered.contains(key) && w.informer.getIndexer().getByKey(key) != null) {
        return false;
      }
      w.checked++;
    }
    return true;
  }

  private <T extends ClusterObject> void register(ClusterEventSink sink, Selection selection, String what,
      String path, String kindName, Class<T> type, ObjectDecoder.Reader<T> reader, long resync) {
    Kind kind = selection.kind();
    LocalFieldFilter fieldFilter = new LocalFieldFilter(selection, what);
    BackoffListerWatcher<T> lw = new BackoffListerWatcher<>(client, what, calls(path, selection, fieldFilter),
        new ItemDecoder<>(kindName, reader, (namespace, name, problem) -> sink.undecodable(kind, namespace, name, problem),
            fieldFilter::keeps), fieldFilter);
    listerWatchers.add(lw);
    SharedIndexInformer<T> informer = new DefaultSharedIndexInformer<>(type, lw, resync, unindexedCache(), (cls, error) -> {
      // BackoffListerWatcher already logged list and watch failures with the server and cause.
      Log.v(4).info("Informer run failed", "resource", what, "err", String.valueOf(error));
    });
    Watched w = new Watched(kind, informer);
    informer.addEventHandler(new ResourceEventHandler<T>() {
      @Override
      public void onAdd(T obj) {
        String key = keyOf(obj);
        sink.upsert(kind, key, obj);
        w.delivered(key, true);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        onAdd(newObj);
      }

      @Override
      public void onDelete(T obj, boolean finalStateUnknown) {
        String key = keyOf(obj);
        sink.delete(kind, key, obj);
        w.delivered(key, false);
      }
    });
    watched.add(w);
  }

  /**
   * The informer's store without the namespace index client-java's default cache keeps (a second
   * set holding every key): nothing here looks objects up by namespace.
   */
  static <T extends KubernetesObject> Cache<T> unindexedCache() {
    return new Cache<>("none", object -> List.of(), InformerSource::keyOf);
  }

  /** The object's own key string, so that the store and the event sink hold one string per object, not two. */
  static String keyOf(KubernetesObject obj) {
    return obj instanceof ClusterObject o ? o.metadata().key() : Caches.deletionHandlingMetaNamespaceKeyFunc(obj);
  }

  @Override
  public void stop() {
    if (syncTimer >= 0) {
      vertx.cancelTimer(syncTimer);
    }
    listerWatchers.forEach(BackoffListerWatcher::stop);
    watched.forEach(w -> w.informer.stop());
    executor.shutdownNow();
  }
}
