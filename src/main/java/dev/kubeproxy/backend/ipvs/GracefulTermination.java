package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.logging.Log;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Removes real servers gently (pkg/proxy/ipvs/graceful_termination.go GracefulTerminationManager):
 * a real server whose endpoint is gone gets weight 0, so it takes no new connections, and is deleted
 * once IPVS counts no active or inactive connection to it. UDP and SCTP real servers are deleted at
 * once (upstream IsRsGracefulTerminationNeeded: their flows are expired on the next packet since
 * expire_nodest_conn is 1). The proxier calls {@link #retry} every minute (rsCheckDeleteInterval).
 */
public final class GracefulTermination {
  private final Ipvs ipvs;
  /** Real servers waiting for their connections to end, by upstream's unique name "vs/rs". */
  private final Map<String, Pending> pending = new LinkedHashMap<>();

  private record Pending(VirtualServer vs, RealServer rs) {}

  public GracefulTermination(Ipvs ipvs) {
    this.ipvs = ipvs;
  }

  /** upstream GetUniqueRSName */
  public static String uniqueName(VirtualServer vs, RealServer rs) {
    return vs.key() + "/" + rs.key();
  }

  public synchronized boolean inTerminationList(String uniqueName) {
    return pending.containsKey(uniqueName);
  }

  /** The real servers still waiting (their unique names), for tests and diagnostics. */
  public synchronized List<String> waiting() {
    return List.copyOf(pending.keySet());
  }

  /**
   * upstream GracefulDeleteRS: deletes the real server now when nothing uses it, else sets its weight
   * to 0 and keeps it in the list.
   */
  public synchronized void gracefulDelete(VirtualServer vs, RealServer rs) throws IOException {
    Pending item = new Pending(vs, rs);
    try {
      if (tryDelete(item)) {
        return;
      }
    } catch (IOException e) {
      Log.error("Failed to delete real server", e, "realServer", uniqueName(vs, rs));
    }
    ipvs.updateRealServer(vs, rs.withWeight(0));
    pending.putIfAbsent(uniqueName(vs, rs), item);
  }

  /**
   * upstream MoveRSOutofGracefulDeleteList: the endpoint came back while its real server was
   * draining; delete the draining one at once so that it can be added afresh with its weight.
   */
  public synchronized void moveOutOfList(String uniqueName) throws IOException {
    Pending item = pending.get(uniqueName);
    if (item == null) {
      throw new IOException("failed to find rs: \"" + uniqueName + "\"");
    }
    ipvs.deleteRealServer(item.vs(), item.rs());
    pending.remove(uniqueName);
  }

  /** upstream tryDeleteRs: deletes every waiting real server whose connections are gone. */
  public synchronized void retry() {
    for (Pending item : new ArrayList<>(pending.values())) {
      String name = uniqueName(item.vs(), item.rs());
      try {
        if (tryDelete(item)) {
          pending.remove(name);
        }
      } catch (IOException e) {
        Log.error("Failed to delete real server", e, "realServer", name);
      }
    }
  }

  /** upstream deleteRsFunc: true when the real server is gone (deleted now, or not there). */
  private boolean tryDelete(Pending item) throws IOException {
    for (RealServer current : ipvs.realServers(item.vs())) {
      if (!current.key().equals(item.rs().key())) {
        continue;
      }
      if (gracefulTerminationNeeded(item.vs().protocol()) && current.activeConn() + current.inactiveConn() != 0) {
        Log.v(5).info("Skip deleting real server till all connection have expired", "realServer",
            uniqueName(item.vs(), item.rs()), "activeConnection", current.activeConn(), "inactiveConnection",
            current.inactiveConn());
        return false;
      }
      Log.v(5).info("Deleting real server", "realServer", uniqueName(item.vs(), item.rs()));
      ipvs.deleteRealServer(item.vs(), current);
      return true;
    }
    return true; // already gone: nothing left to wait for
  }

  /** upstream IsRsGracefulTerminationNeeded */
  static boolean gracefulTerminationNeeded(String protocol) {
    return !protocol.equalsIgnoreCase("UDP") && !protocol.equalsIgnoreCase("SCTP");
  }
}
