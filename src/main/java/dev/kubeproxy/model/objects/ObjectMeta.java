package dev.kubeproxy.model.objects;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.List;
import java.util.Map;

/**
 * What kube-proxy reads of an object's metadata.
 *
 * @param namespace         "" for cluster-scoped objects
 * @param name              the object's name
 * @param resourceVersion   for the informers' list and watch bookkeeping (may be null)
 * @param labels            all labels (the informers' selectors, the service-name label, validation)
 * @param annotations       only the annotations kube-proxy reads ({@link #READ_ANNOTATIONS})
 * @param annotationKeys    the keys of all annotations, for validation
 * @param deletionTimestamp set while the object is being deleted (null otherwise)
 * @param key               "namespace/name", or "name" for a cluster-scoped object (client-go's
 *                          MetaNamespaceKeyFunc), always made here from the two (a value passed in
 *                          is not used): one string the informer's store and the event sink share
 */
public record ObjectMeta(String namespace, String name, String resourceVersion, Map<String, String> labels,
                         Map<String, String> annotations, List<String> annotationKeys, String deletionTimestamp,
                         String key) {
  /** The annotations kube-proxy reads; the values of all others are not kept. */
  public static final List<String> READ_ANNOTATIONS = List.of(
      "service.kubernetes.io/topology-aware-hints",
      "service.kubernetes.io/topology-mode",
      "endpoints.kubernetes.io/last-change-trigger-time");

  public ObjectMeta {
    namespace = namespace == null ? "" : namespace;
    name = name == null ? "" : name;
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
    annotationKeys = annotationKeys == null ? List.copyOf(annotations.keySet()) : List.copyOf(annotationKeys);
    key = namespace.isEmpty() ? name : namespace + "/" + name;
  }

  public ObjectMeta(String namespace, String name, String resourceVersion, Map<String, String> labels,
      Map<String, String> annotations, List<String> annotationKeys, String deletionTimestamp) {
    this(namespace, name, resourceVersion, labels, annotations, annotationKeys, deletionTimestamp, null);
  }

  /** Only a namespace and a name (tests, stubs). */
  public static ObjectMeta of(String namespace, String name) {
    return new ObjectMeta(namespace, name, null, Map.of(), Map.of(), List.of(), null);
  }

  public ObjectMeta withLabels(Map<String, String> newLabels) {
    return new ObjectMeta(namespace, name, resourceVersion, newLabels, annotations, annotationKeys, deletionTimestamp);
  }

  /** The given annotations, every key also listed in annotationKeys. */
  public ObjectMeta withAnnotations(Map<String, String> newAnnotations) {
    return new ObjectMeta(namespace, name, resourceVersion, labels, newAnnotations, null, deletionTimestamp);
  }

  public ObjectMeta withResourceVersion(String version) {
    return new ObjectMeta(namespace, name, version, labels, annotations, annotationKeys, deletionTimestamp);
  }

  public ObjectMeta withDeletionTimestamp(String timestamp) {
    return new ObjectMeta(namespace, name, resourceVersion, labels, annotations, annotationKeys, timestamp);
  }

  /**
   * The client-java form the informers read (key, resourceVersion): built on each call, so
   * nothing the informers do can change this object.
   */
  V1ObjectMeta toV1() {
    return new V1ObjectMeta().namespace(namespace.isEmpty() ? null : namespace).name(name)
        .resourceVersion(resourceVersion);
  }
}
