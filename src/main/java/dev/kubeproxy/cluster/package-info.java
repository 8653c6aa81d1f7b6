/**
 * Everything between the Kubernetes API and the proxier: the API client ({@link
 * dev.kubeproxy.cluster.ApiClients}), the informers or the --manifests directory source behind
 * {@link dev.kubeproxy.cluster.ClusterWatchVerticle}, node discovery ({@link
 * dev.kubeproxy.cluster.NodeInfoResolver}) and events ({@link dev.kubeproxy.cluster.EventRecorder},
 * fed by {@link dev.kubeproxy.cluster.EventRequest}s on cluster.events). Services and EndpointSlices
 * pass {@link dev.kubeproxy.cluster.ObjectValidator} (the API server's rules) in the
 * {@link dev.kubeproxy.cluster.ClusterEventSink} both sources deliver to; list and watch items are
 * decoded one by one ({@link dev.kubeproxy.cluster.ItemDecoder}), so one bad object is reported and
 * left out alone.
 *
 * <p>Messages out: {@link dev.kubeproxy.cluster.ClusterEvent} upserts/deletes by key on
 * cluster.services, cluster.endpointslices, cluster.node and cluster.servicecidrs (published,
 * so several verticles may listen); the kind on cluster.synced once its initial list was
 * delivered; Boolean node eligibility on health.node-eligible; a reason on agent.fatal when the
 * Node's podCIDRs change in NodeCIDR mode.
 */
package dev.kubeproxy.cluster;
