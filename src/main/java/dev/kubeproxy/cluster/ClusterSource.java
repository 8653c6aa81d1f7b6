package dev.kubeproxy.cluster;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.model.objects.Node;
import io.kubernetes.client.openapi.ApiClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * Where the cluster objects come from: the API server through client-java's informers
 * ({@link InformerSource}) or the --manifests directory ({@link ManifestSource}). Opened once at
 * start; node discovery asks it for the own Node before the proxier is built, and the cluster
 * watch then lets it deliver every watched kind ({@link Selection#watched}) to a
 * {@link ClusterEventSink}.
 */
public interface ClusterSource {

  /** The source the options ask for; building the API client reads files, so this runs on a worker. */
  static Future<ClusterSource> open(Vertx vertx, AgentOptions options) {
    if (options.manifestsDir() != null && !options.manifestsDir().isEmpty()) {
      return Future.succeededFuture(new ManifestSource(vertx, options));
    }
    return vertx.executeBlocking(() -> new InformerSource(vertx, ApiClients.create(options), options));
  }

  /**
   * The Node of this name as it is now, or null when there is none. Blocking.
   *
   * @throws Exception when it cannot be read; the message names the server or file and the cause
   */
  Node node(String name) throws Exception;

  /** Whether a failed node lookup is worth retrying (an API server may come up; a directory does not change by waiting). */
  boolean retryNodeLookup();

  /**
   * Starts delivering every watched kind to the sink, then keeps delivering changes. The future
   * fails when the source cannot start at all; it does not wait for an API server.
   */
  Future<Void> start(ClusterEventSink sink);

  /** Completes once every watched kind's initial state was delivered (SYNCED sent for each). */
  Future<Void> synced();

  void stop();

  /** The API client events are written with; null when there is no API (events are only logged). */
  ApiClient apiClient();
}
