/**
 * The nftables backend: the kube-proxy table of one family, written through "nft -f -".
 *
 * <p>nftables is modelled as small typed objects ({@link dev.kubeproxy.backend.nftables.objects.Table},
 * {@link dev.kubeproxy.backend.nftables.objects.Chain}, {@link dev.kubeproxy.backend.nftables.objects.Rule},
 * {@link dev.kubeproxy.backend.nftables.objects.NftSet}, {@link dev.kubeproxy.backend.nftables.objects.NftMap},
 * {@link dev.kubeproxy.backend.nftables.objects.Element}) collected in a
 * {@link dev.kubeproxy.backend.nftables.objects.Transaction}. A rule is typed: matches
 * ({@link dev.kubeproxy.backend.nftables.objects.Match}) and one statement
 * ({@link dev.kubeproxy.backend.nftables.objects.Statement}, {@link dev.kubeproxy.backend.nftables.objects.Verdict}),
 * rendered once to nft text and encoded once to netlink expressions. A transaction goes to the
 * kernel as one nfnetlink batch ({@link dev.kubeproxy.backend.nftables.netlink}), through "nft -f"
 * ({@link dev.kubeproxy.backend.nftables.NftCommand}) when the encoder does not know a command or
 * no netlink socket can be opened, to stdout in --dry-run, or to the in-memory fake of the tests
 * (FakeNftables, in the test sources).
 *
 * <p>Layout: upstream's table, sets, maps, base chains and per-service chains, with one difference
 * that keeps the behaviour and removes most kernel objects. A service port without ClientIP
 * affinity has no per-endpoint chains: its policy chain ends in one rule
 * {@code dnat ip addr . port to numgen random mod M offset K map @endpoint-ranges-tcp-S}, where the
 * N endpoints hold N equal ranges of keys K..K+M-1 of the interval map S (the endpoint
 * {@code numgen random mod N} would pick for the same random draw, as upstream's numgen vmap; M is
 * fixed, so adding or removing an endpoint changes elements, never the rule, which spares the
 * kernel a whole-table validation; a single endpoint is a plain {@code dnat to ip:port}, and a
 * ClusterIP-only port with one endpoint has no chain at all: its key maps to the endpoint in
 * {@code single-endpoint-services}, which the services chain's fixed rules look up). A shard serves at
 * most 64 chains ({@link dev.kubeproxy.backend.nftables.EndpointSlots}): the kernel walks a map's
 * bindings for each element added, so one map for every chain made a full load cost elements ×
 * chains. Hairpin masquerading (an
 * endpoint reaching itself through its service) is done in the {@code masquerading} chain by matching
 * {@code ct status dnat ip saddr . ip daddr . meta l4proto . th dport} against the set
 * {@code hairpin-connections} of {@code ep . ep . proto . port} entries, then marking the packet as
 * upstream's endpoint chain would. Services with ClientIP affinity keep upstream's endpoint chains
 * and affinity sets unchanged.
 *
 * <p>Syncs ({@link dev.kubeproxy.backend.nftables.NftablesProxier} coordinates): the first sync of
 * the process loads the whole table in one transaction. Once an hour, after a failure, when the
 * commit generation checked every syncPeriod shows another writer, and when
 * the ServiceCIDRs change, a full sync reads the table back over netlink
 * ({@link dev.kubeproxy.backend.nftables.objects.TableReader}, on a thread of its own while the desired
 * table is built: {@link dev.kubeproxy.backend.nftables.TableReadAhead}), compares every rule and
 * element exactly as it arrives with the desired table
 * ({@link dev.kubeproxy.backend.nftables.DesiredTable}; one set's elements at a time,
 * {@link dev.kubeproxy.backend.nftables.DesiredElements}) and sends only what differs
 * ({@link dev.kubeproxy.backend.nftables.TableReconciler}, a {@link dev.kubeproxy.backend.nftables.objects.TableVisitor});
 * without a netlink socket it rewrites the whole table. The syncs in between send only the changed
 * chains and elements. The parts: SyncPlanner (which kind of sync, and why), FullTransactionBuilder
 * and PartialTransactionBuilder (over AppliedTable, what the table holds per service port),
 * Committer (netlink or nft, and the commit generations), StaleChains, SyncFailures (counters and
 * the service ports the kernel refuses).
 *
 * <p>Owns: one family's kube-proxy table and its sync state, on the proxier verticle's worker (and,
 * during a reconcile, the reading thread that dumps the table). May call: model (ProxyState,
 * ServicePortPlan, SyncResult), backend.nftables.objects and backend.nftables.netlink, config (sync
 * settings), metrics, host (commands, addresses), net, logging; nothing in the iptables or ipvs
 * backend, cluster, runtime or the HTTP servers.
 */
package dev.kubeproxy.backend.nftables;
