/**
 * Reads a kube-proxy table as {@code nft -j list table} prints it (nft's JSON schema,
 * libnftables-json(5)) into the typed objects the nftables tracer walks: a reader of the kernel's
 * own answer, sharing nothing with the code that renders or encodes the agent's rules, so that a
 * trace over it states what the kernel holds rather than what the generator meant.
 */
package dev.kubeproxy.trace.nftables.json;
