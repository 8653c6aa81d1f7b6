package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.MapViews;
import dev.kubeproxy.model.Protocols;
import dev.kubeproxy.model.ServicePortName;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The hashed chain names of each service port and of its endpoints, kept from one sync to the
 * next, so that a full sync does not hash every service and endpoint chain name again. Not thread
 * safe: one per generator.
 */
final class ChainNameCache {
  /**
   * The chain names of one service port, computed once, and which of its own chains its rules
   * last written had, so that a partial sync that leaves the port out knows them without writing
   * them again.
   */
  static final class ServiceChains {
    static final int SVC = 1;
    static final int SVL = 2;
    static final int EXT = 4;
    static final int FW = 8;

    private final ServicePortName name;
    private final String spn;
    private final String protocol;
    private final String svc;
    private final String svl;
    private final String ext;
    private final String fw;
    /** Of SVC, SVL, EXT and FW, those its last written rules declared; and its nat rules in its own chains then. */
    private int declared;
    private int ownRules;

    ServiceChains(ServicePortName name, String spn, String protocol, String svc, String svl, String ext, String fw) {
      this.name = name;
      this.spn = spn;
      this.protocol = protocol;
      this.svc = svc;
      this.svl = svl;
      this.ext = ext;
      this.fw = fw;
    }

    ServicePortName name() {
      return name;
    }

    String spn() {
      return spn;
    }

    String protocol() {
      return protocol;
    }

    String svc() {
      return svc;
    }

    String svl() {
      return svl;
    }

    String ext() {
      return ext;
    }

    String fw() {
      return fw;
    }

    /** What its rules were as written now: the chains declared (bits) and the nat rules in them (SEP chains included). */
    void written(int declaredChains, int natRules) {
      declared = declaredChains;
      ownRules = natRules;
    }

    int ownRules() {
      return ownRules;
    }

    /** Adds its SVC, SVL, EXT and FW chains as last written to out. */
    void addDeclared(Set<String> out) {
      if ((declared & SVC) != 0) {
        out.add(svc);
      }
      if ((declared & SVL) != 0) {
        out.add(svl);
      }
      if ((declared & EXT) != 0) {
        out.add(ext);
      }
      if ((declared & FW) != 0) {
        out.add(fw);
      }
    }
  }

  private final ChainNames names = new ChainNames();
  private final Map<ServicePortName, ServiceChains> serviceChains = new HashMap<>();
  /**
   * Per service port: each endpoint's KUBE-SEP chain name, reused while the endpoints stay. Not
   * its "ip:port" text: a write makes that again, rather than every endpoint keeping a string.
   */
  private final Map<ServicePortName, Map<Endpoint, String>> endpointChains = new HashMap<>();

  ServiceChains of(ServicePortName name) {
    ServiceChains chains = serviceChains.get(name);
    if (chains == null) {
      String hash = names.serviceHash(name);
      chains = new ServiceChains(name, name.toString(), Protocols.lowerCase(name.protocol()),
          "KUBE-SVC-" + hash, "KUBE-SVL-" + hash, "KUBE-EXT-" + hash, "KUBE-FW-" + hash);
      serviceChains.put(name, chains);
    }
    return chains;
  }

  /** The endpoint chain names of this service port for one sync; {@link #keep} them after it. */
  EndpointChains endpoints(ServiceChains chains) {
    return new EndpointChains(chains, endpointChains.getOrDefault(chains.name(), Map.of()));
  }

  /** Remembers the names of the endpoints the service port has now (none: forgets it). */
  void keep(EndpointChains sepNames, List<Endpoint> reachable) {
    ServicePortName name = sepNames.chains.name();
    if (reachable.isEmpty()) {
      endpointChains.remove(name);
    } else if (sepNames.misses > 0 || sepNames.previous.size() != reachable.size()) {
      Map<Endpoint, String> current = new HashMap<>(reachable.size() * 2);
      for (Endpoint ep : reachable) {
        current.put(ep, sepNames.of(ep));
      }
      endpointChains.put(name, current);
    }
  }

  /** Every chain the port's last written rules had (its own and its endpoints'), added to out. */
  void addLastWritten(ServiceChains chains, Set<String> out) {
    chains.addDeclared(out);
    out.addAll(MapViews.values(endpointChains.getOrDefault(chains.name(), Map.of())));
  }

  /** Forgets the service ports not among these (after a full sync). */
  void retain(Set<ServicePortName> ports) {
    serviceChains.keySet().retainAll(ports);
    endpointChains.keySet().retainAll(ports);
  }

  /** Endpoint chain names of one service port for one sync: the cached ones, else freshly hashed. */
  final class EndpointChains {
    private final ServiceChains chains;
    private final Map<Endpoint, String> previous;
    private Map<Endpoint, String> fresh;
    private int misses;

    private EndpointChains(ServiceChains chains, Map<Endpoint, String> previous) {
      this.chains = chains;
      this.previous = previous;
    }

    /** The endpoint's KUBE-SEP chain name. */
    String of(Endpoint ep) {
      String known = previous.get(ep);
      if (known != null) {
        return known;
      }
      if (fresh == null) {
        fresh = new HashMap<>();
      }
      known = fresh.get(ep);
      if (known == null) {
        misses++;
        known = names.endpointChain(chains.spn(), chains.protocol(), ep.endpoint());
        fresh.put(ep, known);
      }
      return known;
    }
  }
}
