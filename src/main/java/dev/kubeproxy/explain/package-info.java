/**
 * Debugging a Service without SSH, which upstream has no counterpart for: the report behind
 * {@code GET /debug/services} ({@link dev.kubeproxy.explain.DebugServicesHandler},
 * {@link dev.kubeproxy.explain.ReportBuilder}), the packet path a (source, destination) takes through
 * the rules ({@link dev.kubeproxy.explain.PathTracer}, from the model and
 * {@link dev.kubeproxy.model.ServicePortPlan}, never by parsing rules), and the
 * {@code kube-proxy explain} command that asks a running agent and prints the report
 * ({@link dev.kubeproxy.explain.ExplainCommand}).
 *
 * <p>Owns: nothing long-lived; each request builds its report from the proxier verticle's snapshot
 * ({@link dev.kubeproxy.messages.ProxierSnapshot}), asked for over the event bus. May call: model (the
 * types and the plan), messages, the backends' names only (backend.iptables and backend.nftables
 * ChainNames, backend.ipvs IpSets), config and cli (the metrics address of the agent to ask), net,
 * logging. A consumer: nothing below it calls it.
 */
package dev.kubeproxy.explain;
