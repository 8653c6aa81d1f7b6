package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.net.IpFamily;
import java.io.IOException;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * One family's service addresses on kube-ipvs0 (pkg/proxy/ipvs/proxier.go syncService's
 * EnsureAddressBind and syncProxyRules' UnbindAddress): read once per sync, the missing ones bound
 * before the virtual servers are written, the unused ones unbound at the end.
 */
final class AddressBinding {
  private final DummyInterface dummy;
  private final IpFamily family;

  AddressBinding(DummyInterface dummy, IpFamily family) {
    this.dummy = dummy;
    this.family = family;
  }

  /** This family's addresses on the interface: the other family's proxier owns the rest (upstream's netlink handle per family). */
  Set<String> bound() throws IOException {
    Set<String> bound = new HashSet<>();
    for (String address : dummy.boundAddresses()) {
      if (IpAddresses.familyOf(address) == family) {
        bound.add(address);
      }
    }
    return bound;
  }

  /** Binds the wanted addresses not yet bound, in one batch (upstream binds each right after its virtual server). */
  void bindMissing(Collection<String> wanted, Set<String> bound) throws IOException {
    Set<String> toBind = new TreeSet<>(wanted);
    toBind.removeAll(bound);
    dummy.change(toBind, true);
  }

  /** Unbinds the bound addresses no longer wanted; a failure is logged, as upstream's. */
  void unbindUnwanted(Collection<String> wanted, Set<String> bound) {
    Set<String> superfluous = new TreeSet<>(bound);
    superfluous.removeAll(wanted);
    if (superfluous.isEmpty()) {
      return;
    }
    Log.v(2).info("Removing addresses", "interface", dummy.name(), "addresses", superfluous);
    try {
      dummy.change(superfluous, false);
    } catch (IOException e) {
      Log.error("UnbindAddress", e, "interface", dummy.name(), "addresses", superfluous);
    }
  }
}
