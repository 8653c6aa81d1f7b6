/**
 * The agent's entry points: {@link dev.kubeproxy.Main} (java -jar) and
 * {@link dev.kubeproxy.AgentVerticle} (also vertx run) deploy the verticles in upstream's start order
 * (cmd/kube-proxy/app/server.go Run, ProxyServer.Run): the --config file's ConfigVerticle first, then
 * Complete and Validate over it, then the rest, with the one {@link dev.kubeproxy.runtime.AgentContext}
 * built here and passed down. docs/ARCHITECTURE.md walks a Service from the watch to the kernel.
 *
 * <p>May use every package; none uses this one.
 */
package dev.kubeproxy;
