/**
 * The nftables tracer: a packet walked through one family's kube-proxy table in the agent's typed
 * form ({@link dev.kubeproxy.trace.nftables.NftRuleset}), hook by hook and rule by rule
 * ({@link dev.kubeproxy.trace.nftables.NftablesTracer}).
 *
 * <p>It reads the typed objects (chains, rules, sets, maps, elements) and nothing of the code that
 * makes them, so that it states what the rules do rather than what their generator meant.
 */
package dev.kubeproxy.trace.nftables;
