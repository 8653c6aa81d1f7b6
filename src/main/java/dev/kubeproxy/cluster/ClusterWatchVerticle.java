package dev.kubeproxy.cluster;

import dev.kubeproxy.messages.ClusterEvent;
import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.messages.NodeInfo;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.EventBusCodecs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.List;

/**
 * The cluster watch: lets the {@link ClusterSource} (informers or the --manifests directory)
 * deliver {@link ClusterEvent}s on the cluster.* addresses and {@link ClusterEvent.Kind} on
 * cluster.synced once each initial list is delivered; node eligibility on health.node-eligible;
 * the NodeCIDR podCIDR guard (agent.fatal); and the event recorder behind cluster.events, which
 * records the "Starting" event once the watches run.
 */
public class ClusterWatchVerticle extends VerticleBase {

  private final AgentOptions options;
  private final List<String> initialPodCIDRs;
  private final List<String> initialHostIPs;
  private ClusterSource source;
  private EventRecorder recorder;
  private MessageConsumer<EventRequest> eventConsumer;
  private final Promise<Void> synced = Promise.promise();

  /** Opens its own source (tests and embedders). */
  public ClusterWatchVerticle(AgentOptions options) {
    this(options, null, null);
  }

  /**
   * @param nodeInfo what NodeInfoResolver found; its podCIDRs seed the NodeCIDR guard (may be null)
   * @param source   the source node discovery used (null: open one at start)
   */
  public ClusterWatchVerticle(AgentOptions options, NodeInfo nodeInfo, ClusterSource source) {
    this.options = options;
    this.initialPodCIDRs = nodeInfo == null ? List.of() : nodeInfo.podCIDRs();
    this.initialHostIPs = nodeInfo == null ? null : nodeInfo.hostIPs();
    this.source = source;
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
        new NodeHandlers(vertx.eventBus(), nodeCidr, initialPodCIDRs, initialHostIPs));
    Future<ClusterSource> opened = source != null ? Future.succeededFuture(source) : ClusterSource.open(vertx, options);
    return opened.compose(s -> {
      source = s;
      recorder = new EventRecorder(vertx, s.apiClient(), options.hostname());
      eventConsumer = vertx.eventBus().consumer(EventBusAddresses.EVENTS, m -> recorder.record(m.body()));
      s.synced().onSuccess(v -> synced.tryComplete());
      return s.start(sink);
    }).onSuccess(v -> recorder.record(EventRequest.starting()));
  }

  @Override
  public Future<?> stop() {
    if (source != null) {
      source.stop();
    }
    Log.v(2).info("Cluster watch stopped");
    return eventConsumer == null ? Future.succeededFuture() : eventConsumer.unregister();
  }
}
