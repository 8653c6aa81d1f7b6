package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.Match;
import dev.kubeproxy.backend.nftables.objects.NftCounter;
import dev.kubeproxy.backend.nftables.objects.NftMap;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Statement;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.backend.nftables.objects.Verdict;

import dev.kubeproxy.backend.nftables.objects.Nftables;
import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.logging.Log;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Which NodePort protocols the table rejects, and counts, on loopback under feature gate
 * KubeProxyNFTablesLocalhostNodePorts (pkg/proxy/nftables/proxier.go setupNFTables and
 * syncProxyRules): those the userspace proxy does not serve, UDP and SCTP, or every protocol
 * when there is no proxy; none with the gate off. Set before the first sync.
 */
final class LocalhostRejects {
  static final String MAP = "localhost-nodeport-reject-ports";
  static final List<String> PROTOCOLS = List.of("tcp", "udp", "sctp");

  /** Volatile: the metric reads it at scrape, off the sync thread. */
  private volatile List<String> rejected = List.of();
  private boolean gate;

  /** Gate on; proxied: TCP NodePorts are served on loopback by the userspace proxy. */
  void enable(boolean proxied) {
    gate = true;
    rejected = proxied ? List.of("udp", "sctp") : PROTOCOLS;
  }

  boolean rejects(String protocol) {
    return rejected.contains(protocol);
  }

  List<String> rejected() {
    return rejected;
  }

  /**
   * The packets each rejected protocol's counter has counted ("UDP" to packets), for
   * kubeproxy_nftables_localhost_nodeport_rejected_packets_total; empty when nft cannot tell now.
   */
  Map<String, Long> packets(Nftables nft) {
    Map<String, Long> out = new LinkedHashMap<>();
    if (rejected.isEmpty()) {
      return out; // nothing to read (and no nft to run at each scrape)
    }
    try {
      Map<String, Long> counters = nft.counterPackets();
      for (String protocol : rejected) {
        Long packets = counters.get(counter(protocol));
        if (packets != null) {
          out.put(protocol.toUpperCase(Locale.ROOT), packets);
        }
      }
    } catch (NftablesException e) {
      Log.v(2).info("cannot read the localhost NodePort reject counters", "err", e.getMessage());
    }
    return out;
  }

  static String chain(String protocol) {
    return "localhost-nodeport-reject-" + protocol;
  }

  /** The named counter upstream's metric reads (pkg/proxy/metrics LocalhostNodePortRejectedCounterName). */
  static String counter(String protocol) {
    return "localhost-nodeport-rejected-" + protocol;
  }

  /** The element that sends a loopback packet to this NodePort to its protocol's reject chain. */
  static Element element(String protocol, String port) {
    return Element.ofMap(MAP, List.of(protocol, port), Verdict.goTo(chain(protocol)), null);
  }

  /**
   * Adds the map, the per-protocol counters and reject chains, and the rule in
   * nodeport-endpoints-check (already flushed) to a full sync; the map is flushed for the service
   * part to refill. A protocol not rejected has its chain and counter added and deleted, so that
   * what an earlier configuration left is gone (its elements go with the flushed map).
   *
   * @return the rules added
   */
  int write(Transaction tx, FamilySyntax syntax) {
    if (!gate) {
      return 0;
    }
    NftMap map = map();
    tx.add(map);
    tx.flush(map);
    int rules = 1;
    for (String protocol : PROTOCOLS) {
      NftCounter counter = new NftCounter(counter(protocol));
      Chain chain = Chain.regular(chain(protocol));
      tx.add(counter);
      tx.add(chain);
      tx.flush(chain);
      if (rejects(protocol)) {
        tx.add(new Rule(chain.name(), new Statement.CountedReject(counter.name())));
        rules++;
      } else {
        tx.delete(chain);
        tx.delete(counter);
      }
    }
    Match loopback = new Match.Address(Match.Field.DESTINATION, false,
        syntax.ip().equals("ip6") ? "::1" : "127.0.0.0/8");
    tx.add(new Rule("nodeport-endpoints-check", List.of(loopback), new Statement.DestinationVmap(false, MAP)));
    return rules;
  }

  /**
   * With the gate off, at the first sync over an existing table: what a run with the gate on left
   * goes (added first so that deleting cannot fail; the rule using the map was flushed before).
   */
  void removeLeftovers(Transaction tx) {
    if (gate) {
      return;
    }
    tx.add(map());
    tx.delete(map());
    for (String protocol : PROTOCOLS) {
      Chain chain = Chain.regular(chain(protocol));
      NftCounter counter = new NftCounter(counter(protocol));
      tx.add(chain);
      tx.flush(chain);
      tx.delete(chain);
      tx.add(counter);
      tx.delete(counter);
    }
  }

  private static NftMap map() {
    return new NftMap(MAP, "inet_proto . inet_service : verdict", "localhost NodePorts rejected by kube-proxy");
  }
}
