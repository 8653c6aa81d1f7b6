package dev.kubeproxy.messages;

/**
 * An events.k8s.io/v1 event to record, sent by any verticle on {@link dev.kubeproxy.messages.EventBusAddresses#EVENTS}
 * so that only the cluster package talks to the API. The factories below are upstream's events
 * (cmd/kube-proxy/app/server.go ProxyServer.Run, serveHealthz, serveMetrics; server_linux.go
 * platformSetup; pkg/proxy/healthcheck/service_health.go; pkg/proxy/util/utils.go
 * LogAndEmitIncorrectIPVersionEvent), and one of the agent's own for objects it cannot program.
 *
 * @param type             "Normal" or "Warning"
 * @param reason           the machine-readable reason
 * @param action           what kube-proxy was doing
 * @param note             the human-readable text (may be empty)
 * @param serviceNamespace namespace of the object the event is about, or null for this node
 * @param serviceName      name of that object, or null for this node
 * @param regardingKind    "Service" or "EndpointSlice" (the object's kind); ignored for node events
 */
public record EventRequest(String type, String reason, String action, String note,
                           String serviceNamespace, String serviceName, String regardingKind) {
  public static final String NORMAL = "Normal";
  public static final String WARNING = "Warning";

  public EventRequest {
    note = note == null ? "" : note;
    regardingKind = regardingKind == null ? "Service" : regardingKind;
  }

  public EventRequest(String type, String reason, String action, String note, String serviceNamespace,
                      String serviceName) {
    this(type, reason, action, note, serviceNamespace, serviceName, "Service");
  }

  /** An event regarding this node. */
  public static EventRequest onNode(String type, String reason, String action, String note) {
    return new EventRequest(type, reason, action, note, null, null);
  }

  /** An event regarding a Service. */
  public static EventRequest onService(String namespace, String name, String type, String reason, String action, String note) {
    return new EventRequest(type, reason, action, note, namespace, name);
  }

  public boolean regardsNode() {
    return serviceName == null;
  }

  /** The birth cry, recorded by the cluster watch once the watches have started. */
  public static EventRequest starting() {
    return onNode(NORMAL, "Starting", "StartKubeProxy", "");
  }

  /** The healthz server could not start and bindAddressHardFail is set. */
  public static EventRequest failedToStartProxierHealthcheck(String error) {
    return onNode(WARNING, "FailedToStartProxierHealthcheck", "StartKubeProxy", error);
  }

  /** The metrics server could not start and bindAddressHardFail is set. */
  public static EventRequest failedToStartMetricServer(String error) {
    return onNode(WARNING, "FailedToStartMetricServer", "StartKubeProxy", error);
  }

  /** The conntrack hashsize could not be raised because /sys is read-only. */
  public static EventRequest readOnlySysFS() {
    return onNode(WARNING, "readOnlySysFS", "StartKubeProxy",
        "CRI error: /sys is read-only: cannot modify conntrack limits, problems may arise later (If running Docker, see docker issue #24000)");
  }

  /** A service's healthCheckNodePort could not be opened. */
  public static EventRequest failedToStartServiceHealthcheck(String nodeName, String namespace, String name, int port, String error) {
    return onService(namespace, name, WARNING, "FailedToStartServiceHealthcheck", "Listen",
        "node " + nodeName + " failed to start healthcheck \"" + namespace + "/" + name + "\" on port " + port + ": " + error);
  }

  /** An endpoint address of the wrong family for the proxier that read it. */
  public static EventRequest incorrectIpVersion(String namespace, String name, String ip, String action) {
    return onService(namespace, name, WARNING, "KubeProxyIncorrectIPVersion", action,
        ip + " in endpointslice has incorrect IP version");
  }

  /**
   * A Service or EndpointSlice that an API server would have rejected (from --manifests, or
   * undecodable in a list or watch): it is not programmed. The note names the field.
   */
  public static EventRequest invalidObject(String kind, String namespace, String name, String note) {
    return new EventRequest(WARNING, "FailedValidation", "Validate", note, namespace, name, kind);
  }
}
