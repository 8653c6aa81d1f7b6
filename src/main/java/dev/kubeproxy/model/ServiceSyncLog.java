package dev.kubeproxy.model;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The syncs of one family as /debug/services tells them per service port: the last sync that
 * touched each service (a full sync touches every one), with its result, and the service ports
 * whose rules the kernel refused, as they were when refused. Written by the family's sync, read
 * from any thread.
 */
public final class ServiceSyncLog {
  /**
   * One sync.
   *
   * @param at    when it finished
   * @param kind  "full", "partial", or "unknown" (a failed sync does not say)
   * @param error why it failed, or null when it succeeded
   */
  public record Sync(Instant at, String kind, String error) {
    public boolean ok() {
      return error == null;
    }
  }

  /** A service port the kernel refused, with the inputs it was refused with (it stays out until they change). */
  public record Refusal(Instant at, ServicePort port, List<Endpoint> endpoints) {}

  private final Map<NamespacedName, Sync> partial = new ConcurrentHashMap<>();
  private final Map<ServicePortName, Refusal> refused = new ConcurrentHashMap<>();
  private volatile Sync lastFull;
  private volatile Sync last;

  /** A sync finished; {@code changed} are the services it programmed (all of them when full). */
  public void synced(Set<NamespacedName> changed, Instant at, boolean full, String error) {
    Sync sync = new Sync(at, error != null ? "unknown" : full ? "full" : "partial", error);
    last = sync;
    if (full) {
      lastFull = sync;
      partial.clear();
    } else {
      changed.forEach(service -> partial.put(service, sync));
    }
  }

  /** The backend left this port out of a sync of {@code state}: the kernel refused its rules. */
  public void refused(ProxyState state, ServicePortName port, Instant at) {
    refused.put(port, new Refusal(at, state.services().get(port), state.endpointsOf(port)));
  }

  /** The last sync that programmed this service, or null when none has yet. */
  public Sync lastFor(NamespacedName service) {
    Sync mine = partial.get(service);
    Sync full = lastFull;
    if (mine == null) {
      return full;
    }
    return full == null || mine.at().isAfter(full.at()) ? mine : full;
  }

  /** The last sync of the family, or null. */
  public Sync last() {
    return last;
  }

  /** The refusal of this port while its inputs in {@code state} are still the refused ones, else null. */
  public Refusal refusal(ProxyState state, ServicePortName port) {
    Refusal r = refused.get(port);
    if (r == null) {
      return null;
    }
    if (!java.util.Objects.equals(r.port(), state.services().get(port)) || !r.endpoints().equals(state.endpointsOf(port))) {
      refused.remove(port, r);
      return null;
    }
    return r;
  }
}
