package dev.kubeproxy.cluster;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.AgentOptions;
import dev.kubeproxy.EventBusAddresses;
import dev.kubeproxy.EventBusCodecs;
import io.kubernetes.client.openapi.ApiClient;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.List;

/**
 * The cluster source: upstream's informers (or the --manifests directory) delivering
 * {@link ClusterEvent}s on the cluster.* addresses and {@link ClusterEvent.Kind} on cluster.synced
 * once each initial list is delivered; node eligibility on health.node-eligible; the NodeCIDR
 * podCIDR guard (agent.fatal); and the event recorder behind cluster.events, which records the
 * "Starting" event once the watches run.
 */
public class ClusterWatchVerticle extends VerticleBase {

  private final AgentOptions options;
  private final List<String> initialPodCIDRs;
  private InformerSource informers;
  private ManifestSource manifests;
  private EventRecorder recorder;
  private MessageConsumer<EventRequest> eventConsumer;
  private final Promise<Void> synced = Promise.promise();

  public ClusterWatchVerticle(AgentOptions options) {
    this(options, null);
  }

  /** @param nodeInfo what NodeInfoResolver found; its podCIDRs seed the NodeCIDR guard (may be null) */
  public ClusterWatchVerticle(AgentOptions options, NodeInfo nodeInfo) {
    this.options = options;
    this.initialPodCIDRs = nodeInfo == null ? List.of() : nodeInfo.podCIDRs();
  }

  /** Completes once every watched kind has delivered its initial list (SYNCED was sent for each). */
  public Future<Void> synced() {
    return synced.future();
  }

  @Override
  public Future<?> start() {
    EventBusCodecs.register(vertx);
    boolean nodeCidr = "NodeCIDR".equals(options.config().detectLocalMode);
    ClusterEventSink sink = new ClusterEventSink(vertx.eventBus(),
        new NodeHandlers(vertx.eventBus(), nodeCidr, initialPodCIDRs));
    if (options.manifestsDir() != null && !options.manifestsDir().isEmpty()) {
      startEvents(null);
      manifests = new ManifestSource(vertx, options, sink);
      return manifests.start().onSuccess(v -> {
        synced.tryComplete();
        recorder.record(EventRequest.starting());
      });
    }
    return vertx.executeBlocking(() -> ApiClients.create(options)).map(client -> {
      startEvents(client);
      informers = new InformerSource(vertx, client, options, sink);
      informers.start(synced);
      recorder.record(EventRequest.starting());
      return null;
    });
  }

  private void startEvents(ApiClient client) {
    recorder = new EventRecorder(vertx, client, options.hostname());
    eventConsumer = vertx.eventBus().consumer(EventBusAddresses.EVENTS, m -> recorder.record(m.body()));
  }

  @Override
  public Future<?> stop() {
    if (informers != null) {
      informers.stop();
    }
    if (manifests != null) {
      manifests.stop();
    }
    Log.v(2).info("Cluster watch stopped");
    return eventConsumer == null ? Future.succeededFuture() : eventConsumer.unregister();
  }
}
