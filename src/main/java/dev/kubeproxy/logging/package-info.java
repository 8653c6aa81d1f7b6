/**
 * The agent's one logging API (klog's text format or JSON, with -v and --vmodule), the equivalent of
 * upstream's k8s.io/klog/v2 and component-base/logs: {@link dev.kubeproxy.logging.Log} writes,
 * {@link dev.kubeproxy.logging.VModule} filters, {@link dev.kubeproxy.logging.JulBridge} brings the
 * libraries' java.util.logging records into the same stream.
 *
 * <p>Owns: the process-wide verbosity and format (the only static mutable state the agent keeps).
 * May call: only {@code dev.kubeproxy.gotext.GoDuration}, so that durations print in Go's form;
 * every other package may call it. {@link dev.kubeproxy.gotext.GoQuote} is Go's %q for everyone.
 */
package dev.kubeproxy.logging;
