/**
 * The iptables backend (upstream v1.31's iptables mode, reference/iptables.md).
 *
 * <ul>
 *   <li>{@link dev.kubeproxy.proxy.iptables.IptablesProxier}: one family's backend — full and partial syncs,
 *       jump rules, canary, cleanup, --dry-run.</li>
 *   <li>{@link dev.kubeproxy.proxy.iptables.RulesetGenerator}: the service model to iptables-restore input,
 *       with upstream's chain names ({@link dev.kubeproxy.proxy.iptables.ChainNames}), rule order and comments.</li>
 *   <li>{@link dev.kubeproxy.proxy.iptables.IptablesTool}: the iptables/ip6tables commands of one backend
 *       (legacy or nft) with the xtables-lock wait flags; {@link dev.kubeproxy.proxy.iptables.BackendSelector}
 *       picks the backend as iptables-wrapper does.</li>
 *   <li>{@link dev.kubeproxy.proxy.iptables.IptablesCleanup}: --cleanup for both families and backends.</li>
 * </ul>
 */
package dev.kubeproxy.proxy.iptables;
