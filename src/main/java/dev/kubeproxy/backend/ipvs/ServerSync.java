package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.net.IpFamily;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Brings the kernel's virtual and real servers of one family to a ruleset's (pkg/proxy/ipvs/proxier.go
 * syncService, syncEndpoint and cleanLegacyService). A removed real server drains through
 * {@link GracefulTermination}, whose waiting ones are retried every minute.
 */
final class ServerSync {
  /** upstream rsCheckDeleteInterval */
  static final Duration GRACEFUL_RETRY_INTERVAL = Duration.ofMinutes(1);

  private final Ipvs kernel;
  private final IpvsSettings ipvsSettings;
  private final IpFamily family;
  private final GracefulTermination graceful;
  private Instant lastGracefulRetry = Instant.MIN;
  /** upstream initialSync: the first sync resets the weight of real servers left by an earlier run. */
  private boolean initialSync = true;

  ServerSync(Ipvs kernel, IpvsSettings ipvsSettings, IpFamily family) {
    this.kernel = kernel;
    this.ipvsSettings = ipvsSettings;
    this.family = family;
    this.graceful = new GracefulTermination(kernel);
  }

  /** Deletes the draining real servers whose connections are gone, once a minute at most. */
  void retryDrainingIfDue(Instant now) {
    if (Duration.between(lastGracefulRetry, now).compareTo(GRACEFUL_RETRY_INTERVAL) >= 0) {
      graceful.retry(); // upstream runs it every minute on its own; here the periodic syncs carry it
      lastGracefulRetry = now;
    }
  }

  /**
   * Adds or updates every virtual server of the ruleset and syncs its real servers; a server the
   * kernel refuses is logged and skipped.
   *
   * @return the keys of the virtual servers the ruleset holds, for {@link #deleteUnused}
   */
  Set<String> apply(IpvsRuleset ruleset) throws IOException {
    Map<String, VirtualServer> current = new HashMap<>();
    for (VirtualServer vs : kernel.virtualServers()) {
      current.put(vs.key(), vs);
    }
    Set<String> active = new HashSet<>();
    for (VirtualServer vs : ruleset.virtualServers().values()) {
      try {
        VirtualServer applied = current.get(vs.key());
        if (applied == null) {
          Log.v(3).info("Adding new service", "serviceName", ruleset.owners().get(vs.key()), "virtualServer", vs);
          kernel.addVirtualServer(vs);
        } else if (!applied.sameAs(vs)) {
          Log.v(3).info("IPVS service was changed", "serviceName", ruleset.owners().get(vs.key()));
          kernel.updateVirtualServer(vs);
        }
        active.add(vs.key());
        syncRealServers(vs, applied == null ? List.of() : kernel.realServers(vs), ruleset.realServers().get(vs.key()));
      } catch (IOException e) {
        Log.error("Failed to sync service", e, "servicePortName", ruleset.owners().get(vs.key()), "virtualServer", vs);
      }
    }
    return active;
  }

  /**
   * upstream cleanLegacyService: deletes this family's virtual servers that are not active, except
   * those inside ipvs.excludeCIDRs. Ends a successful sync: the next one is no initial sync.
   */
  void deleteUnused(Set<String> active) throws IOException {
    for (VirtualServer vs : kernel.virtualServers()) {
      if (active.contains(vs.key()) || ipvsSettings.excluded(vs.address())
          || IpAddresses.familyOf(vs.address()) != family) {
        continue;
      }
      Log.v(4).info("Delete service", "virtualServer", vs);
      try {
        kernel.deleteVirtualServer(vs);
      } catch (IOException e) {
        Log.error("Failed to delete service", e, "virtualServer", vs);
      }
    }
    initialSync = false;
  }

  /** The real servers still draining (their unique names). */
  List<String> draining() {
    return graceful.waiting();
  }

  /**
   * upstream syncEndpoint: adds the missing real servers (one draining under the same name is
   * deleted first, then added afresh), and drains the ones no endpoint asks for any more.
   */
  private void syncRealServers(VirtualServer vs, List<RealServer> currentList, List<RealServer> wanted)
      throws IOException {
    Map<String, RealServer> current = new HashMap<>();
    currentList.forEach(rs -> current.put(rs.key(), rs));
    Set<String> wantedKeys = new HashSet<>();
    for (RealServer rs : wanted) {
      wantedKeys.add(rs.key());
      RealServer existing = current.get(rs.key());
      if (existing != null) {
        String unique = GracefulTermination.uniqueName(vs, rs);
        if (!graceful.inTerminationList(unique)) {
          if (initialSync && existing.weight() != rs.weight()) {
            kernel.updateRealServer(vs, rs); // left at another weight by an earlier run
          }
          continue;
        }
        Log.v(5).info("new ep is in graceful delete list", "uniqueRealServer", unique);
        graceful.moveOutOfList(unique);
      }
      try {
        kernel.addRealServer(vs, rs);
      } catch (IOException e) {
        Log.error("Failed to add destination", e, "newDest", rs);
      }
    }
    for (RealServer rs : currentList) {
      if (wantedKeys.contains(rs.key()) || graceful.inTerminationList(GracefulTermination.uniqueName(vs, rs))) {
        continue;
      }
      Log.v(5).info("Using graceful delete", "uniqueRealServer", GracefulTermination.uniqueName(vs, rs));
      try {
        graceful.gracefulDelete(vs, rs);
      } catch (IOException e) {
        Log.error("Failed to delete destination", e, "uniqueRealServer", GracefulTermination.uniqueName(vs, rs));
      }
    }
  }
}
