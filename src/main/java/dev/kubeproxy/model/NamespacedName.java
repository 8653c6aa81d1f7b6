package dev.kubeproxy.model;

/** namespace/name of a Service. */
public record NamespacedName(String namespace, String name) implements Comparable<NamespacedName> {
  @Override
  public String toString() {
    return namespace + "/" + name;
  }

  /** Hand-written (same contract as the record's): the model hashes these keys a lot. */
  @Override
  public int hashCode() {
    return 31 * java.util.Objects.hashCode(namespace) + java.util.Objects.hashCode(name);
  }

  @Override
  public boolean equals(Object o) {
    return o == this || o instanceof NamespacedName n && java.util.Objects.equals(name, n.name)
        && java.util.Objects.equals(namespace, n.namespace);
  }

  @Override
  public int compareTo(NamespacedName o) {
    return toString().compareTo(o.toString());
  }
}
