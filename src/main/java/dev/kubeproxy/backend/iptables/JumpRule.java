package dev.kubeproxy.backend.iptables;

import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_EXTERNAL_SERVICES;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_FIREWALL;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_FORWARD;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_NODEPORTS;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_POSTROUTING;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_PROXY_FIREWALL;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_SERVICES;

import java.util.ArrayList;
import java.util.List;

/**
 * A rule in a built-in chain that jumps to one of kube-proxy's chains (pkg/proxy/iptables/proxier.go iptablesJumpChains, iptablesKubeletJumpChains). These are
 * the only rules kube-proxy writes outside its own chains, one command each, at full syncs.
 *
 * @param comment "" for the kubelet-duplicate KUBE-FIREWALL jumps, which have none
 */
public record JumpRule(String table, String builtin, String target, String comment, List<String> extraArgs) {

  private static final List<String> NEW = List.of("-m", "conntrack", "--ctstate", "NEW");

  /** kube-proxy's own jumps, in upstream's order (each inserted at the top of its built-in chain). */
  public static final List<JumpRule> KUBE_PROXY = List.of(
      new JumpRule("filter", "INPUT", KUBE_EXTERNAL_SERVICES, "kubernetes externally-visible service portals", NEW),
      new JumpRule("filter", "FORWARD", KUBE_EXTERNAL_SERVICES, "kubernetes externally-visible service portals", NEW),
      new JumpRule("filter", "INPUT", KUBE_NODEPORTS, "kubernetes health check service ports", List.of()),
      new JumpRule("filter", "FORWARD", KUBE_SERVICES, "kubernetes service portals", NEW),
      new JumpRule("filter", "OUTPUT", KUBE_SERVICES, "kubernetes service portals", NEW),
      new JumpRule("filter", "FORWARD", KUBE_FORWARD, "kubernetes forwarding rules", List.of()),
      new JumpRule("filter", "INPUT", KUBE_PROXY_FIREWALL, "kubernetes load balancer firewall", NEW),
      new JumpRule("filter", "OUTPUT", KUBE_PROXY_FIREWALL, "kubernetes load balancer firewall", NEW),
      new JumpRule("filter", "FORWARD", KUBE_PROXY_FIREWALL, "kubernetes load balancer firewall", NEW),
      new JumpRule("nat", "OUTPUT", KUBE_SERVICES, "kubernetes service portals", List.of()),
      new JumpRule("nat", "PREROUTING", KUBE_SERVICES, "kubernetes service portals", List.of()),
      new JumpRule("nat", "POSTROUTING", KUBE_POSTROUTING, "kubernetes postrouting rules", List.of()));

  /** Duplicates of kubelet's jumps to KUBE-FIREWALL (kubelet owns them; cleanup leaves them to it). */
  public static final List<JumpRule> KUBELET = List.of(
      new JumpRule("filter", "INPUT", KUBE_FIREWALL, "", List.of()),
      new JumpRule("filter", "OUTPUT", KUBE_FIREWALL, "", List.of()));

  /** The rule as iptables-save prints it ("-A INPUT ... -j KUBE-..."), comment quoted. */
  public String saveLine() {
    StringBuilder line = new StringBuilder("-A ").append(builtin);
    for (String arg : extraArgs) {
      line.append(' ').append(arg);
    }
    if (!comment.isEmpty()) {
      line.append(" -m comment --comment \"").append(comment).append('"');
    }
    return line.append(" -j ").append(target).toString();
  }

  /** The rule's arguments after "-I CHAIN -t TABLE": extra matches, comment, jump. */
  public List<String> ruleArgs() {
    List<String> args = new ArrayList<>(extraArgs);
    if (!comment.isEmpty()) {
      args.addAll(List.of("-m", "comment", "--comment", comment));
    }
    args.add("-j");
    args.add(target);
    return args;
  }
}
