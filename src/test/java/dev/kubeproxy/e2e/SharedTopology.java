package dev.kubeproxy.e2e;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives every end-to-end class the same {@link Topology}: built once per test run (namespaces and
 * echo processes take seconds to start), deleted when the run ends (JUnit closes the root store;
 * the topology's shutdown hook covers an aborted JVM). Each class resets the node's netfilter
 * state before it starts its agent, see {@link Topology#resetNode()}.
 */
public final class SharedTopology implements ParameterResolver {
  private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(SharedTopology.class);

  /** Closes the topology when JUnit closes the root store at the end of the run. */
  record Holder(Topology topology) implements ExtensionContext.Store.CloseableResource {
    @Override
    public void close() {
      topology.close();
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == Topology.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Requirements.assumeNetnsCapable();
    return context.getRoot().getStore(NS).getOrComputeIfAbsent("topology", key -> {
      try {
        return new Holder(Topology.create("e2e"));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("cannot build the test topology", e);
      }
    }, Holder.class).topology();
  }
}
