/**
 * Tracing a packet through what ipvs mode programs ({@link dev.kubeproxy.trace.ipvs.IpvsTracer}): IPVS's virtual
 * and real servers read from "ipvsadm -Sn" text ({@link dev.kubeproxy.trace.ipvs.IpvsadmTable}), and the iptables
 * rules and ipsets around them read as the tools print them; nothing shared with the code that writes them.
 */
package dev.kubeproxy.trace.ipvs;
