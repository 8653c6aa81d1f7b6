/**
 * The health servers (upstream's pkg/proxy/healthcheck): the agent's /healthz and /livez on
 * healthzBindAddress ({@link dev.kubeproxy.health.HealthzServerVerticle} over
 * {@link dev.kubeproxy.health.ProxierHealth}) and one health-check server per Service with
 * externalTrafficPolicy Local ({@link dev.kubeproxy.health.ServiceHealthServerVerticle}).
 *
 * <p>Owns: the health state and the listening sockets, each on its verticle's event loop. Fed through
 * the event bus only ({@link dev.kubeproxy.messages.HealthUpdate} and
 * {@link dev.kubeproxy.messages.ServiceHealthState} from the proxier verticle, Node eligibility from the
 * cluster watch). May call: server (the listen loop), metrics (the healthz/livez counters), messages,
 * model, config and the agent's options, host, net, gotext, logging; it records Kubernetes events as
 * {@link dev.kubeproxy.messages.EventRequest} messages.
 */
package dev.kubeproxy.health;
