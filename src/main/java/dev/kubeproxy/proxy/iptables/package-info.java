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
 *   <li>{@link dev.kubeproxy.proxy.iptables.RulesMonitor}: the check every syncPeriod that notices rules
 *       flushed or deleted by other programs (canaries, jump rules, top-level rule counts).</li>
 *   <li>{@link dev.kubeproxy.proxy.iptables.RefusedServices} and {@link dev.kubeproxy.proxy.iptables.LineOwners}:
 *       a Service whose rules iptables-restore refuses is found by the refused line and left out.</li>
 * </ul>
 */
package dev.kubeproxy.proxy.iptables;
