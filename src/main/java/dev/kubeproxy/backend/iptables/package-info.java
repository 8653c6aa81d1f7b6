/**
 * The iptables backend (upstream v1.31's iptables mode, pkg/proxy/iptables/proxier.go).
 *
 * <ul>
 *   <li>{@link dev.kubeproxy.backend.iptables.IptablesProxier}: one family's backend — full and partial syncs,
 *       jump rules, canary, cleanup, --dry-run.</li>
 *   <li>{@link dev.kubeproxy.backend.iptables.RulesetGenerator}: the service model to iptables-restore input,
 *       with upstream's chain names ({@link dev.kubeproxy.backend.iptables.ChainNames}), rule order and comments.</li>
 *   <li>{@link dev.kubeproxy.backend.netfilter.IptablesTool}: the iptables/ip6tables commands of one backend
 *       (legacy or nft) with the xtables-lock wait flags; {@link dev.kubeproxy.backend.netfilter.BackendSelector}
 *       picks the backend as iptables-wrapper does, once per agent (the agent's one selector is in its
 *       {@code AgentContext}, shared with ipvs mode).</li>
 *   <li>{@link dev.kubeproxy.backend.iptables.IptablesCleanup}: --cleanup for both families and backends.</li>
 *   <li>{@link dev.kubeproxy.backend.iptables.RulesMonitor}: the check every syncPeriod that notices rules
 *       flushed or deleted by other programs (canaries, jump rules, top-level rule counts).</li>
 *   <li>{@link dev.kubeproxy.backend.iptables.BaseChains}: the jump rules from the built-in chains and the
 *       canary chains, made sure of at full syncs.</li>
 *   <li>{@link dev.kubeproxy.backend.iptables.LineOwners}: a Service whose rules iptables-restore refuses is
 *       found by the refused line and left out (kept in the model's RefusedServicePorts).</li>
 * </ul>
 *
 * <p>Owns: one family's iptables state (the tool in use, the chains applied, the next sync's kind);
 * called only through {@link dev.kubeproxy.model.ProxyBackend} on the proxier verticle's worker. May
 * call: model (ProxyState, ServicePortPlan, SyncResult), backend.netfilter (the iptables tool and
 * the sysctls shared with ipvs), config, metrics, host and host.netlink, net, logging; nothing in
 * the other backends, cluster, runtime or the HTTP servers.
 */
package dev.kubeproxy.backend.iptables;
