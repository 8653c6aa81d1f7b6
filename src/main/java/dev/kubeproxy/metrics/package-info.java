/**
 * The agent's meters (upstream's pkg/proxy/metrics and component-base metrics): {@link
 * dev.kubeproxy.metrics.ProxyMetrics} holds every kubeproxy_* meter, one instance per agent, built by
 * AgentVerticle into the {@code AgentContext} and handed to whoever updates a meter.
 *
 * <p>Owns: the meter registry and its Prometheus text format (the HTTP server is in {@code
 * dev.kubeproxy.server}). May call: config (gates, mode), gotext; nothing of the model, backends,
 * runtime or servers, which all update the meters through the one instance passed down.
 */
package dev.kubeproxy.metrics;
