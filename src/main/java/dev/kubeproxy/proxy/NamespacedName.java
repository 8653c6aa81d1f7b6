package dev.kubeproxy.proxy;

/** namespace/name of a Service. */
public record NamespacedName(String namespace, String name) implements Comparable<NamespacedName> {
  @Override
  public String toString() {
    return namespace + "/" + name;
  }

  @Override
  public int compareTo(NamespacedName o) {
    return toString().compareTo(o.toString());
  }
}
