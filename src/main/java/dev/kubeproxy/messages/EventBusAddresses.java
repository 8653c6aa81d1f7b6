package dev.kubeproxy.messages;

/**
 * The event-bus addresses the verticles talk over. Messages are sent with local
 * codecs: bodies are plain Java objects, never serialized.
 */
public final class EventBusAddresses {
  private EventBusAddresses() {}

  /** Body: String reason. The main class logs it, closes Vert.x and exits with status 1. */
  public static final String FATAL = "agent.fatal";

  /** Body: {@link dev.kubeproxy.messages.ClusterEvent} of a core/v1 Service. */
  public static final String SERVICES = "cluster.services";
  /** Body: {@link dev.kubeproxy.messages.ClusterEvent} of a discovery/v1 EndpointSlice. */
  public static final String ENDPOINT_SLICES = "cluster.endpointslices";
  /** Body: {@link dev.kubeproxy.messages.ClusterEvent} of this node's core/v1 Node. */
  public static final String NODE = "cluster.node";
  /** Body: {@link dev.kubeproxy.messages.ClusterEvent} of a networking ServiceCIDR. */
  public static final String SERVICE_CIDRS = "cluster.servicecidrs";
  /** Body: {@link dev.kubeproxy.messages.ClusterEvent.Kind}: the initial list of that kind has been delivered. */
  public static final String SYNCED = "cluster.synced";

  /**
   * Body: {@link dev.kubeproxy.messages.EventRequest}: an events.k8s.io/v1 event to record (regarding
   * this node or a Service). The cluster watch writes it to the API (or only logs it in --manifests mode).
   * Always published: the proxier listens too (the invalid objects /debug/services reports).
   */
  public static final String EVENTS = "cluster.events";

  /** Body: {@link dev.kubeproxy.messages.HealthUpdate}: the proxier queued or finished a sync. */
  public static final String HEALTH = "health.update";
  /** Body: Boolean, the node's eligibility (no deletion timestamp, no autoscaler taint). */
  public static final String NODE_ELIGIBLE = "health.node-eligible";
  /** Body: {@link dev.kubeproxy.messages.ServiceHealthState}: the per-service health-check ports to serve. */
  public static final String SERVICE_HEALTH = "health.services";

  /**
   * Request body: {@link dev.kubeproxy.messages.DebugServicesQuery}; the proxier replies with a
   * {@link dev.kubeproxy.messages.ProxierSnapshot} (what /debug/services explains).
   */
  public static final String DEBUG_SERVICES = "proxy.debug-services";

}
