/**
 * The agent's meters and the metrics server (upstream's pkg/proxy/metrics and component-base
 * metrics): {@link dev.kubeproxy.metrics.ProxyMetrics} holds every kubeproxy_* meter, one instance
 * per agent, built by AgentVerticle into the {@link dev.kubeproxy.runtime.AgentContext} and handed to whoever
 * updates a meter; {@link dev.kubeproxy.server.MetricsServerVerticle} serves /metrics, /healthz,
 * /proxyMode, /configz, the z-pages and the profiling endpoints on metricsBindAddress.
 *
 * <p>Owns: the meter registry and its Prometheus text format. May call: config (configz, gates,
 * mode), cli (the version for /version), explain (the /debug/services handler), health's server
 * loop and HostPort, cluster's EventRequest message (a server that cannot start), logging; nothing
 * in proxy.
 */
package dev.kubeproxy.metrics;
