package dev.kubeproxy.cluster;

import dev.kubeproxy.messages.EventRequest;

import dev.kubeproxy.logging.Log;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.EventsV1Api;
import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * Writes events.k8s.io/v1 events as upstream's recorder does (cmd/kube-proxy/app/server.go
 * newProxyServer: events.NewBroadcaster, NewRecorder "kube-proxy"): reporting
 * controller "kube-proxy", instance "kube-proxy-&lt;hostname&gt;", node events regarding
 * {kind Node, name, uid = name} in namespace "default". Without an API client (--manifests
 * mode) events are only logged. A failed write is logged and dropped, as client-go's broadcaster
 * drops events it cannot deliver.
 */
public final class EventRecorder {

  private static final java.util.regex.Pattern SAFE_NAME = java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");

  private final Vertx vertx;
  private final ApiClient client;
  private final String nodeName;
  private final String instance;

  /** @param client the API client, or null to log events only */
  public EventRecorder(Vertx vertx, ApiClient client, String nodeName) {
    this.vertx = vertx;
    this.client = client;
    this.nodeName = nodeName;
    this.instance = "kube-proxy-" + nodeName;
  }

  /** Builds the API object for a request (visible for tests). */
  EventsV1Event toEvent(EventRequest r) {
    String namespace = r.regardsNode() ? "default" : r.serviceNamespace();
    String regardingName = r.regardsNode() ? nodeName : r.serviceName();
    // An event about an invalid object cannot borrow its name or namespace when those are the invalid part.
    if (!SAFE_NAME.matcher(namespace).matches() || namespace.length() > 63) {
      namespace = "default";
    }
    String eventPrefix = SAFE_NAME.matcher(regardingName).matches() && regardingName.length() <= 200
        ? regardingName : "invalid-object";
    V1ObjectReference regarding = r.regardsNode()
        ? new V1ObjectReference().kind("Node").name(nodeName).uid(nodeName).namespace("")
        : new V1ObjectReference().kind(r.regardingKind())
            .apiVersion("EndpointSlice".equals(r.regardingKind()) ? "discovery.k8s.io/v1" : "v1").namespace(r.serviceNamespace())
            .name(r.serviceName()).uid(r.serviceNamespace() + "/" + r.serviceName());
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    return new EventsV1Event()
        .apiVersion("events.k8s.io/v1").kind("Event")
        .metadata(new V1ObjectMeta().namespace(namespace)
            .name(eventPrefix + "." + Long.toHexString(System.currentTimeMillis() * 1_000_000L + System.nanoTime() % 1_000_000L)))
        .eventTime(now)
        .reportingController("kube-proxy")
        .reportingInstance(instance)
        .action(r.action())
        .reason(r.reason())
        .type(r.type())
        .note(r.note())
        .regarding(regarding);
  }

  /** Records the event; the future completes when the API accepted it (or it was only logged). */
  public Future<Void> record(EventRequest r) {
    String about = r.regardsNode() ? "Node " + nodeName : r.regardingKind() + " " + r.serviceNamespace() + "/" + r.serviceName();
    Log.info("Event occurred", "object", about, "type", r.type(), "reason", r.reason(), "action", r.action(),
        "note", r.note());
    if (client == null) {
      return Future.succeededFuture();
    }
    EventsV1Event event = toEvent(r);
    return vertx.<Void>executeBlocking(() -> {
      new EventsV1Api(client).createNamespacedEvent(event.getMetadata().getNamespace(), event).execute();
      return null;
    }, false).onFailure(e -> Log.error("Unable to write event (will not retry)", "reason", r.reason(),
        "err", ApiClients.describe(client.getBasePath(), e)));
  }
}
