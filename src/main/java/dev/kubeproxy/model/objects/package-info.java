/**
 * The cluster objects kube-proxy reads, kept lean: {@link dev.kubeproxy.model.objects.Service},
 * {@link dev.kubeproxy.model.objects.EndpointSlice}, {@link dev.kubeproxy.model.objects.Node}
 * and {@link dev.kubeproxy.model.objects.ServiceCidr} hold only the fields the model, the
 * validator, node discovery and the events use (no managedFields, no status conditions, no
 * unread annotations), and {@link dev.kubeproxy.model.objects.ObjectDecoder} reads them from the
 * API's JSON and from --manifests YAML, ignoring unknown fields as upstream's Go decoder does.
 * They implement client-java's {@code KubernetesObject} so that client-java's informers can cache
 * them. Owns nothing mutable; calls nothing outside this package but Jackson and client-java's
 * metadata types.
 */
package dev.kubeproxy.model.objects;
