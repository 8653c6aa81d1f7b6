/**
 * Tracing a packet through what ipvs mode programs ({@link dev.kubeproxy.trace.ipvs.IpvsTracer}): IPVS virtual and
 * real servers in their typed form, and the iptables rules and ipsets around them read as written.
 */
package dev.kubeproxy.trace.ipvs;
