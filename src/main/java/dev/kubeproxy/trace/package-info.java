/**
 * Tracing a packet through the rules actually programmed, without root: the packet, the answer and the
 * {@link dev.kubeproxy.trace.PacketTracer} seam shared by the per-rule-form tracers (iptables, nftables, ipvs).
 *
 * <p>A tracer is a reader of rules, not a second generator: it takes the rules in the agent's written form
 * and never the code that writes them, so it cannot agree with their bugs.
 */
package dev.kubeproxy.trace;
