/**
 * Everything between the Kubernetes API and the proxier verticle: the API client ({@link
 * dev.kubeproxy.cluster.ApiClients}), the one {@link dev.kubeproxy.cluster.ClusterSource} opened at
 * start (client-java's informers, {@link dev.kubeproxy.cluster.InformerSource}, or the --manifests
 * directory, {@link dev.kubeproxy.cluster.ManifestSource}, both selecting objects through the same
 * {@link dev.kubeproxy.cluster.Selection}s), node discovery ({@link
 * dev.kubeproxy.cluster.NodeInfoResolver}, which asks that source for the own Node), the cluster
 * watch ({@link dev.kubeproxy.cluster.ClusterWatchVerticle}) and events ({@link
 * dev.kubeproxy.cluster.EventRecorder}, fed by {@link dev.kubeproxy.messages.EventRequest}s on
 * cluster.events). Objects are the lean types of {@link dev.kubeproxy.model.objects}; list and
 * watch items are decoded one by one ({@link dev.kubeproxy.cluster.ItemDecoder}), so one bad object
 * is reported and left out alone. Services and EndpointSlices pass {@link
 * dev.kubeproxy.cluster.ObjectValidator} (the API server's rules) in the {@link
 * dev.kubeproxy.cluster.ClusterEventSink} both sources deliver to.
 *
 * <p>Messages out: {@link dev.kubeproxy.messages.ClusterEvent}s by key, carrying the previously
 * delivered version, on cluster.services, cluster.endpointslices, cluster.node and
 * cluster.servicecidrs (published, so several verticles may listen); the kind on cluster.synced
 * once its initial list was delivered; Boolean node eligibility on health.node-eligible; a reason
 * on agent.fatal when the Node's podCIDRs change in NodeCIDR mode.
 *
 * <p>Owns: the API client, the informers or the manifests directory, on the watch verticle's
 * context. May call: model.objects (the objects it decodes), messages (what it sends), config (client
 * connection, gates, mode, the agent's options), net, logging; nothing of the model's trackers, the
 * backends, runtime, metrics or the HTTP servers.
 */
package dev.kubeproxy.cluster;
