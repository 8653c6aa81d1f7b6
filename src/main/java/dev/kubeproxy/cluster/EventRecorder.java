package dev.kubeproxy.cluster;

import dev.kubeproxy.messages.EventRequest;

import dev.kubeproxy.logging.Log;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Writes events.k8s.io/v1 events as upstream's recorder does (cmd/kube-proxy/app/server.go
 * newProxyServer: events.NewBroadcaster, NewRecorder "kube-proxy"): reporting
 * controller "kube-proxy", instance "kube-proxy-&lt;hostname&gt;", node events regarding
 * {kind Node, name, uid = name} in namespace "default". Without an API client (--manifests
 * mode) events are only logged. A failed write is logged and dropped, as client-go's broadcaster
 * drops events it cannot deliver. The body is written here and sent through the API client as bytes:
 * its Gson serializer would load every one of client-java's model classes to write one Event.
 */
public final class EventRecorder {

  /** A MicroTime as the API server writes one in UTC (metav1.RFC3339Micro). */
  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);
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

  /** The events.k8s.io/v1 Event of a request. */
  JsonObject toEvent(EventRequest r) {
    String namespace = r.regardsNode() ? "default" : r.serviceNamespace();
    String regardingName = r.regardsNode() ? nodeName : r.serviceName();
    // An event about an invalid object cannot borrow its name or namespace when those are the invalid part.
    if (!SAFE_NAME.matcher(namespace).matches() || namespace.length() > 63) {
      namespace = "default";
    }
    String eventPrefix = SAFE_NAME.matcher(regardingName).matches() && regardingName.length() <= 200
        ? regardingName : "invalid-object";
    JsonObject regarding = r.regardsNode()
        ? new JsonObject().put("kind", "Node").put("name", nodeName).put("uid", nodeName).put("namespace", "")
        : new JsonObject().put("kind", r.regardingKind())
            .put("apiVersion", "EndpointSlice".equals(r.regardingKind()) ? "discovery.k8s.io/v1" : "v1")
            .put("namespace", r.serviceNamespace()).put("name", r.serviceName())
            .put("uid", r.serviceNamespace() + "/" + r.serviceName());
    String name = eventPrefix + "." + Long.toHexString(System.currentTimeMillis() * 1_000_000L + System.nanoTime() % 1_000_000L);
    JsonObject event = new JsonObject()
        .put("apiVersion", "events.k8s.io/v1").put("kind", "Event")
        .put("metadata", new JsonObject().put("namespace", namespace).put("name", name))
        .put("eventTime", MICRO_TIME.format(Instant.now()))
        .put("reportingController", "kube-proxy")
        .put("reportingInstance", instance)
        .put("action", r.action())
        .put("reason", r.reason())
        .put("type", r.type())
        .put("note", r.note())
        .put("regarding", regarding);
    event.getMap().values().removeIf(java.util.Objects::isNull); // as the API's own client leaves unset fields out
    return event;
  }

  /** Records the event; the future completes when the API accepted it (or it was only logged). */
  public Future<Void> record(EventRequest r) {
    String about = r.regardsNode() ? "Node " + nodeName : r.regardingKind() + " " + r.serviceNamespace() + "/" + r.serviceName();
    Log.info("Event occurred", "object", about, "type", r.type(), "reason", r.reason(), "action", r.action(),
        "note", r.note());
    if (client == null) {
      return Future.succeededFuture();
    }
    JsonObject event = toEvent(r);
    return vertx.<Void>executeBlocking(() -> {
      create(event);
      return null;
    }, false).onFailure(e -> Log.error("Unable to write event (will not retry)", "reason", r.reason(),
        "err", ApiClients.describe(client.getBasePath(), e)));
  }

  /** POST the Event, authenticated as client-java's generated APIs do. */
  private void create(JsonObject event) throws ApiException, java.io.IOException {
    String path = "/apis/events.k8s.io/v1/namespaces/"
        + client.escapeString(event.getJsonObject("metadata").getString("namespace")) + "/events";
    okhttp3.Call call = ApiClients.call(client, "POST", path, List.of(), event.encode().getBytes(StandardCharsets.UTF_8));
    try (okhttp3.Response response = call.execute()) {
      if (!response.isSuccessful()) {
        throw ApiClients.failure(response);
      }
    }
  }
}
