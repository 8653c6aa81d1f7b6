package dev.kubeproxy.runtime;

import dev.kubeproxy.AgentVerticle;

import dev.kubeproxy.config.FeatureGates;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.backend.netfilter.BackendSelector;
import java.time.Clock;

/**
 * What the agent's parts share, built once in {@link AgentVerticle} and passed down by
 * constructor: no part reaches for a global instead.
 *
 * @param metrics  the kubeproxy_* meters of this process
 * @param gates    the effective feature gates
 * @param clock    the wall clock (tests pass a fixed or stepped one)
 * @param commands runs OS commands (iptables-restore, nft, ...), with their time limits
 * @param iptablesBackend the agent's one choice of iptables-legacy or iptables-nft, made at its first use
 */
public record AgentContext(ProxyMetrics metrics, FeatureGates gates, Clock clock, CommandRunner commands,
                           BackendSelector iptablesBackend) {
  /** With a backend selector of its own over {@code commands}. */
  public AgentContext(ProxyMetrics metrics, FeatureGates gates, Clock clock, CommandRunner commands) {
    this(metrics, gates, clock, commands, new BackendSelector(commands));
  }
}
