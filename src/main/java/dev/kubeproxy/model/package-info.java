/**
 * The service proxy's model, independent of any rule backend (upstream's pkg/proxy:
 * servicechangetracker.go, endpointschangetracker.go, endpointslicecache.go, topology.go).
 *
 * <p>Owns: the per-family change trackers and live maps ({@link dev.kubeproxy.model.ServiceChangeTracker},
 * {@link dev.kubeproxy.model.EndpointsChangeTracker}, {@link dev.kubeproxy.model.ServicePortMap},
 * {@link dev.kubeproxy.model.EndpointsMap}), the per-port policy ({@link dev.kubeproxy.model.ServicePortPlan}),
 * the seam every backend implements ({@link dev.kubeproxy.model.ProxyBackend}), the state it programs
 * ({@link dev.kubeproxy.model.ProxyState}) and what it reports back ({@link dev.kubeproxy.model.SyncResult}).
 *
 * <p>May use: model.objects, config (the configuration and gates), metrics, host, net, logging.
 * Never a backend, the runtime, an HTTP server or explain.
 */
package dev.kubeproxy.model;
