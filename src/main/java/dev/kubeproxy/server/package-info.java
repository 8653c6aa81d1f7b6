/**
 * The agent's HTTP serving: the listen loop with upstream's retry and hard-fail behaviour
 * ({@link dev.kubeproxy.server.ServerLoop}), the connection limits, and the metrics server
 * (/metrics, /healthz, /proxyMode, /configz, /statusz, /flagz, /debug). A consumer: it uses the
 * layers below and explain; nothing below uses it.
 */
package dev.kubeproxy.server;
