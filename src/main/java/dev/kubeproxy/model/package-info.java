/**
 * The service proxy's model and sync loop, independent of the rule backend (upstream's
 * pkg/proxy: servicechangetracker.go, endpointschangetracker.go, endpointslicecache.go,
 * topology.go, metaproxier).
 *
 * <p>Owns: the per-family change trackers and live maps ({@link dev.kubeproxy.model.ServiceChangeTracker},
 * {@link dev.kubeproxy.model.EndpointsChangeTracker}, {@link dev.kubeproxy.model.ServicePortMap},
 * {@link dev.kubeproxy.model.EndpointsMap}), the per-port policy ({@link dev.kubeproxy.model.ServicePortPlan}),
 * the state a backend programs ({@link dev.kubeproxy.model.ProxyState}: the whole model, the changed
 * services and why a full sync is due) and what it reports back ({@link dev.kubeproxy.model.SyncResult}),
 * the sync runner ({@link dev.kubeproxy.runtime.BoundedFrequencyRunner}), and the choice of backends
 * ({@link dev.kubeproxy.runtime.Proxiers}).
 *
 * <p>Threads: {@link dev.kubeproxy.runtime.ProxierVerticle} is a worker verticle; its one context owns
 * every family's model and backend ({@link dev.kubeproxy.runtime.FamilyProxier}), so nothing here locks.
 *
 * <p>May call: the backends through {@link dev.kubeproxy.model.ProxyBackend} (subpackages iptables,
 * nftables, ipvs; conntrack for the stale-entry cleanup), the agent's options and context, platform (commands, addresses), metrics
 * (ProxyMetrics), config (the configuration and gates), logging. It hears the cluster through the
 * event bus (cluster.* addresses) and tells health and the cluster watch through it (health
 * updates, Service health, events); it never calls those packages' objects directly, and uses only
 * their message types (ClusterEvent, cluster.objects, NodeInfo, EventRequest, HealthUpdate,
 * ServiceHealthState).
 */
package dev.kubeproxy.model;
