package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.net.Cidr;
import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.net.IpFamily;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The ipvs section of the configuration (--ipvs-* flags), resolved for one family.
 *
 * @param scheduler     rr when not configured (upstream defaultScheduler)
 * @param excludeCIDRs  this family's CIDRs whose virtual servers a sync leaves alone
 * @param strictARP     arp_ignore 1 and arp_announce 2, so that kube-ipvs0's addresses are not announced
 */
public record IpvsSettings(
    String scheduler, List<Cidr> excludeCIDRs, boolean strictARP, Duration tcpTimeout, Duration tcpFinTimeout,
    Duration udpTimeout) {
  /** upstream's supported schedulers (pkg/proxy/apis/config/validation validateIPVSSchedulerMethod). */
  public static final List<String> SCHEDULERS =
      List.of("rr", "wrr", "lc", "wlc", "lblc", "lblcr", "sh", "dh", "sed", "nq", "mh");

  public IpvsSettings {
    excludeCIDRs = List.copyOf(excludeCIDRs);
  }

  /** upstream filterCIDRs and the scheduler default, from the validated configuration. */
  public static IpvsSettings of(KubeProxyConfiguration.IPVS ipvs, IpFamily family) {
    List<Cidr> exclude = new ArrayList<>();
    if (ipvs.excludeCIDRs != null) {
      for (String raw : ipvs.excludeCIDRs) {
        String cidr = IpAddresses.normalizeCidr(raw.trim());
        if (cidr != null && IpAddresses.cidrFamily(cidr) == family) {
          exclude.add(Cidr.parse(cidr));
        }
      }
    }
    String scheduler = ipvs.scheduler == null || ipvs.scheduler.isEmpty() ? "rr" : ipvs.scheduler;
    return new IpvsSettings(scheduler, exclude, ipvs.strictARP, orZero(ipvs.tcpTimeout), orZero(ipvs.tcpFinTimeout),
        orZero(ipvs.udpTimeout));
  }

  private static Duration orZero(Duration d) {
    return d == null ? Duration.ZERO : d;
  }

  public boolean excluded(String ip) {
    for (Cidr cidr : excludeCIDRs) {
      if (cidr.contains(ip)) {
        return true;
      }
    }
    return false;
  }
}
