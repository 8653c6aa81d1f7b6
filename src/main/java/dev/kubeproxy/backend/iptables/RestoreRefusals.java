package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.iptables.SyncPlanner.SyncKind;
import dev.kubeproxy.backend.netfilter.IptablesTool;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.model.ProxyBackend.SyncException;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.RefusedServicePorts;
import dev.kubeproxy.model.ServicePortName;
import java.util.List;

/**
 * What a sync does when iptables-restore refuses its input. A refusal in a full sync is pinned on
 * the Service whose rules hold the refused line; that Service is left out (all its ports: a bad
 * field, a name or an IP, is usually all of theirs) and the others are synced again at once, up to
 * {@link #MAX_REFUSED_PER_SYNC} times a sync. A left-out Service is tried again once its ports or
 * endpoints change. A refused partial sync blames nobody: it can fail for reasons outside its own
 * lines (a chain deleted behind the agent's back), so it is retried at once as a full one.
 */
final class RestoreRefusals {
  /** A bound on the restores one sync may try while it leaves refused Services out. */
  static final int MAX_REFUSED_PER_SYNC = 8;

  /** What the proxier does after a refused attempt. */
  enum Decision {
    /** Sync again at once (a partial one as full, a full one without the refused Service). */
    SYNC_AGAIN,
    /** Nobody to leave out, or too many attempts: the sync fails (and the next one is full). */
    GIVE_UP
  }

  /** The kernel refused the generated ruleset; {@code culprit} owns the refused line (null: nobody known). */
  static final class Refused extends SyncException {
    final SyncKind kind;
    final ServicePortName culprit;

    Refused(String message, IptablesTool.RestoreException cause, SyncKind kind, ServicePortName culprit) {
      super(message, cause);
      this.kind = kind;
      this.culprit = culprit;
    }
  }

  private final RefusedServicePorts refused = new RefusedServicePorts("iptables-restore");

  /** The state without the refused service ports that have not changed since. */
  ProxyState withoutRefused(ProxyState state) {
    return refused.filter(state);
  }

  /** The ports left out since the last call, for the sync's result. */
  List<ServicePortName> takeUnreported() {
    return refused.takeUnreported();
  }

  /** After attempt (0-based) was refused: leaves the culprit's Service out when there is one. */
  Decision refused(ProxyState state, Refused e, int attempt) {
    if (attempt >= MAX_REFUSED_PER_SYNC) {
      return Decision.GIVE_UP;
    }
    if (e.kind == SyncKind.PARTIAL) {
      return Decision.SYNC_AGAIN;
    }
    if (e.culprit == null) {
      return Decision.GIVE_UP;
    }
    IptablesTool.RestoreException refusal = (IptablesTool.RestoreException) e.getCause();
    Log.error("iptables-restore refused the rules of this Service; leaving it out and programming every other one;"
        + " it is tried again when it changes", "service", e.culprit.service(), "servicePort", e.culprit,
        "refusedLine", refusal.failingLine());
    for (ServicePortName port : state.services().keySet()) {
      if (port.service().equals(e.culprit.service())) {
        refused.add(state, port);
      }
    }
    return Decision.SYNC_AGAIN;
  }
}
