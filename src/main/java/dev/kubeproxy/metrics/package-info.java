/**
 * The agent's meters and the metrics server (upstream's pkg/proxy/metrics and component-base
 * metrics): {@link dev.kubeproxy.metrics.ProxyMetrics} holds every kubeproxy_* meter, one instance
 * per agent, built by AgentVerticle into the {@link dev.kubeproxy.AgentContext} and handed to whoever
 * updates a meter; {@link dev.kubeproxy.metrics.MetricsServerVerticle} serves /metrics, /healthz,
 * /proxyMode, /configz, the z-pages and the profiling endpoints on metricsBindAddress.
 *
 * <p>Owns: the meter registry and its Prometheus text format. May call: config (configz, gates),
 * health's server loop, logging; nothing in proxy or cluster.
 */
package dev.kubeproxy.metrics;
