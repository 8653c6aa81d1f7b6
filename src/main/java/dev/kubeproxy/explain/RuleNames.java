package dev.kubeproxy.explain;

import dev.kubeproxy.config.ProxyMode;

import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.backend.nftables.ChainNames;

/** The names a packet path shows for each step, in the words of the mode's own rules. */
interface RuleNames {
  /** Where one of a service's addresses is matched (kind: PathTracer's entry kinds). */
  String entry(String kind);

  String noEndpoints(boolean clusterIp);

  String firewall(ServicePort svc);

  /** The chain that drops what the source ranges do not allow. */
  String firewallDrop(ServicePort svc);

  String external(ServicePort svc);

  /** The cluster-wide or the node-local policy chain. */
  String policy(ServicePort svc, boolean local);

  String dnat();

  static RuleNames of(ProxyMode mode) {
    return mode == ProxyMode.NFTABLES ? new Nftables() : new Iptables();
  }

  /** pkg/proxy/iptables/proxier.go's chains. */
  final class Iptables implements RuleNames {
    private final dev.kubeproxy.backend.iptables.ChainNames names = new dev.kubeproxy.backend.iptables.ChainNames();

    @Override
    public String entry(String kind) {
      return kind.equals(PathTracer.NODE_PORT) ? "nat KUBE-SERVICES -> KUBE-NODEPORTS" : "nat KUBE-SERVICES";
    }

    @Override
    public String noEndpoints(boolean clusterIp) {
      return clusterIp ? "filter KUBE-SERVICES" : "filter KUBE-EXTERNAL-SERVICES";
    }

    @Override
    public String firewall(ServicePort svc) {
      return "nat KUBE-FW-" + names.serviceHash(svc.name());
    }

    @Override
    public String firewallDrop(ServicePort svc) {
      return "filter KUBE-PROXY-FIREWALL";
    }

    @Override
    public String external(ServicePort svc) {
      return "nat KUBE-EXT-" + names.serviceHash(svc.name());
    }

    @Override
    public String policy(ServicePort svc, boolean local) {
      return "nat " + (local ? "KUBE-SVL-" : "KUBE-SVC-") + names.serviceHash(svc.name());
    }

    @Override
    public String dnat() {
      return "nat KUBE-SEP-…";
    }
  }

  /** pkg/proxy/nftables/proxier.go's chains and maps, in this agent's layout. */
  final class Nftables implements RuleNames {
    /** Where a ClusterIP-only service with one endpoint is matched, masqueraded and DNATed: it has no chain. */
    static final String SINGLE_ENDPOINT = "services (map @single-endpoint-services)";

    @Override
    public String entry(String kind) {
      return kind.equals(PathTracer.NODE_PORT) ? "services -> nodeports (map @service-nodeports)"
          : "services (map @service-ips)";
    }

    @Override
    public String noEndpoints(boolean clusterIp) {
      return clusterIp ? "filter (map @no-endpoint-services)" : "filter (maps @no-endpoint-services, @no-endpoint-nodeports)";
    }

    @Override
    public String firewall(ServicePort svc) {
      return ChainNames.firewallChain(svc.name());
    }

    @Override
    public String firewallDrop(ServicePort svc) {
      return ChainNames.firewallChain(svc.name());
    }

    @Override
    public String external(ServicePort svc) {
      return ChainNames.externalChain(svc.name());
    }

    @Override
    public String policy(ServicePort svc, boolean local) {
      return local ? ChainNames.localChain(svc.name()) : ChainNames.serviceChain(svc.name());
    }

    @Override
    public String dnat() {
      return "dnat (endpoint-ranges map, or endpoint-… chains with affinity)";
    }
  }
}
