/**
 * The health servers (upstream's pkg/proxy/healthcheck): the proxier's /healthz and /livez on
 * healthzBindAddress ({@link dev.kubeproxy.health.HealthzServerVerticle} over
 * {@link dev.kubeproxy.health.ProxierHealth}) and one health-check server per Service with
 * externalTrafficPolicy Local ({@link dev.kubeproxy.health.ServiceHealthServerVerticle}).
 *
 * <p>Owns: the health state and the listening sockets, each on its verticle's event loop. Fed through
 * the event bus only ({@link dev.kubeproxy.messages.HealthUpdate} and
 * {@link dev.kubeproxy.messages.ServiceHealthState} from the proxier, Node eligibility from the agent).
 * May call: metrics (the healthz/livez counters), config and the agent's options, platform
 * (addresses), the proxy model's value types (IpFamily, NamespacedName), cluster's NodeInfo,
 * logging; it publishes Kubernetes events as cluster.EventRequest messages.
 */
package dev.kubeproxy.health;
