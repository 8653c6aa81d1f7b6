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

import java.util.List;

/**
 * Which NodePort protocols the table rejects, and counts, on loopback under feature gate
 * KubeProxyNFTablesLocalhostNodePorts (pkg/proxy/nftables/proxier.go setupNFTables and
 * syncProxyRules): those the userspace proxy does not serve, UDP and SCTP, or every protocol
 * when there is no proxy; none with the gate off. Set before the first sync.
 */
final class LocalhostRejects {
  static final String MAP = "localhost-nodeport-reject-ports";
  static final List<String> PROTOCOLS = List.of("tcp", "udp", "sctp");

  private List<String> rejected = List.of();
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
    NftMap map = new NftMap(MAP, "inet_proto . inet_service : verdict", "localhost NodePorts rejected by kube-proxy");
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
}
