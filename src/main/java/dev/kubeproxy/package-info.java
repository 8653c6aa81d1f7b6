/**
 * The agent's entry points and wiring: {@link dev.kubeproxy.Main} (java -jar) and
 * {@link dev.kubeproxy.AgentVerticle} (also vertx run) deploy the verticles in upstream's start order
 * (cmd/kube-proxy/app/server.go Run, ProxyServer.Run): the --config file's ConfigVerticle first, then
 * Complete and Validate over it, then the rest; they build the one {@link dev.kubeproxy.runtime.AgentContext}
 * (metrics, gates, clock, command runner, the iptables backend choice) and pass it down; the
 * event-bus addresses and codecs the verticles talk over.
 *
 * <p>A Service's path from the cluster to the kernel: ClusterWatchVerticle (informer or manifests)
 * publishes a ClusterEvent, ProxierVerticle routes it to each FamilyProxier's change trackers, the
 * family's BoundedFrequencyRunner runs FamilyProxier.syncOnce, which checks the trackers out into a
 * ProxyState and calls the ProxyBackend (IptablesProxier: RulesetGenerator, then iptables-restore;
 * NftablesProxier: a transaction through nft or netlink); its SyncResult comes back as the return value.
 *
 * <p>May call every package; no package calls back into this one except for the addresses and the context.
 */
package dev.kubeproxy;
