package dev.kubeproxy.proxy.nftables;

import dev.kubeproxy.config.SyncSettings;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.platform.CommandRunner;
import dev.kubeproxy.proxy.Endpoint;
import dev.kubeproxy.proxy.IpFamily;
import dev.kubeproxy.proxy.ProxierSettings;
import dev.kubeproxy.proxy.ProxyBackend;
import dev.kubeproxy.proxy.ProxyState;
import dev.kubeproxy.proxy.RefusedServicePorts;
import dev.kubeproxy.proxy.ServicePort;
import dev.kubeproxy.proxy.ServicePortName;
import dev.kubeproxy.proxy.ServicePortPlan;
import dev.kubeproxy.proxy.SyncResult;
import dev.kubeproxy.proxy.nftables.netlink.NetlinkNftables;
import dev.kubeproxy.proxy.nftables.netlink.NetlinkPath;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The nftables backend for one family. The first sync of the process writes the whole kube-proxy
 * table in one transaction. Later full syncs (every syncPeriod, after a failure, on a ServiceCIDR
 * change) read the table from the kernel and send only the differences, which also repairs changes
 * made behind the agent's back. The syncs in between send only what changed in the model: element
 * additions and deletions, the chains of changed service ports flushed and rewritten, and chains
 * no longer used flushed now and deleted at least one second later.
 */
public class NftablesProxier implements ProxyBackend {
  /** Kernels before 6.2 may still see a chain as referenced just after its last reference went. */
  static final Duration STALE_CHAIN_GRACE = Duration.ofSeconds(1);
  /** "off" keeps every transaction on nft (no netlink socket is opened). */
  static final String NETLINK_ENV = "KUBE_PROXY_NFTABLES_NETLINK";

  /** What the kernel holds for one service port, and the inputs it was computed from. */
  private record Applied(ServicePort svc, List<Endpoint> endpoints, ServicePortRules rules) {}

  private final ProxierSettings settings;
  private final CommandRunner runner;
  private final Nftables nft;
  private final ProxyMetrics metrics;
  private final Clock clock;
  private final FamilySyntax syntax;
  private final NodePortAddresses nodePortAddresses;
  private final FailedTransactionLog failedTransactions;

  /** What the next sync has to be, whatever the model's changes ask for. */
  enum SyncKind {
    /** The first of this process (or after a cleanup): base chains recreated, everything written. */
    LOAD,
    /** After a failed full sync: everything written again, without reading the table back. */
    REWRITE,
    /** After a failed partial sync, or when asked: the table read back and the differences sent. */
    RECONCILE,
    /** Only the model's changes, until the sync period asks for a resync. */
    PARTIAL
  }

  private SyncKind next = SyncKind.LOAD;
  private Instant lastFullSync;
  private List<String> appliedServiceCIDRs = List.of();
  private final Map<ServicePortName, Applied> applied = new HashMap<>();
  /** Service ports whose objects the kernel refused, left out until they change. */
  private final RefusedServicePorts refused = new RefusedServicePorts("nftables");
  /** Which service port put each object into the last full transaction (to name the one the kernel refuses). */
  private Map<NftObject, ServicePortName> owners = new java.util.IdentityHashMap<>();
  /** Rounds left for leaving refused service ports out within the current sync. */
  private int isolationRounds;
  private final ElementIndex elements = new ElementIndex();
  private final EndpointSlots slots = new EndpointSlots();
  /** The endpoint-ranges shards the kernel's table declares (as of the last sync built). */
  private final Set<String> declaredShards = new HashSet<>();
  private final Map<String, Instant> staleChains = new LinkedHashMap<>();
  private int fixedRuleCount;
  private int serviceRuleCount;
  private long syncFailures;
  private long cleanupFailures;
  private Transaction lastTransaction;
  /** Reads the table back for reconciling (null: every full sync rewrites the whole table). */
  private TableReader reader;
  /** Whether the last full sync was a reconcile (kernel read and only differences sent). */
  private boolean reconciled;
  /** The NodePort addresses of the last full sync (the fixed part depends on them). */
  private List<String> appliedNodePortIPs;
  /** Where partial syncs go when they can (null: nft does everything). */
  private NetlinkPath netlink;
  /** Who else commits to nf_tables in this namespace; shared by both families' proxiers. */
  private final CommitGenerations sharedGenerations;
  /** {@link #sharedGenerations} while there is a netlink socket to read generations, else null. */
  private CommitGenerations generations;
  /** The generation readings around the last commit: before, after (-1: not read). */
  private long[] lastCommit = {-1, -1};
  /** The generation at which the current full sync listed the table (-1: not listed or not read). */
  private long listedAt = -1;

  /**
   * @param generations the nf_tables commit tracking of the namespace the runner writes to, the same
   *                    instance for both families
   */
  public NftablesProxier(
      ProxierSettings settings, CommandRunner runner, ProxyMetrics metrics, CommitGenerations generations) {
    this(settings, runner, settings.dryRun() ? new DryRunNftables(settings.family(), settings.dryRunOutput())
        : new NftCommand(settings.family(), runner), metrics, Clock.systemUTC(),
        NodePortAddresses.fromIpCommand(runner), generations);
  }

  /** For tests and the benchmark: any {@link Nftables}, metrics, clock and interface addresses. */
  NftablesProxier(ProxierSettings settings, CommandRunner runner, Nftables nft, ProxyMetrics metrics,
      Clock clock, Supplier<List<String>> interfaceAddresses) {
    this(settings, runner, nft, metrics, clock, interfaceAddresses, new CommitGenerations());
  }

  NftablesProxier(ProxierSettings settings, CommandRunner runner, Nftables nft, ProxyMetrics metrics,
      Clock clock, Supplier<List<String>> interfaceAddresses, CommitGenerations generations) {
    this.sharedGenerations = generations;
    this.settings = settings;
    this.runner = runner;
    this.nft = nft;
    this.metrics = metrics;
    this.clock = clock;
    this.syntax = new FamilySyntax(settings.family());
    this.failedTransactions = new FailedTransactionLog(clock);
    // (The endpoint-ranges offsets live as long as this proxier; a full sync rewrites the shards.)
    this.nodePortAddresses = new NodePortAddresses(settings.nodePortAddresses(), interfaceAddresses);
    this.reader = nft instanceof TableReader r ? r : null;
  }

  @Override
  public IpFamily family() {
    return settings.family();
  }

  /**
   * Checks nft (≥ 1.0.1), the kernel (≥ 5.13 unless KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK
   * is non-empty) and the kernel features, as upstream does at start. Nothing to check in --dry-run.
   */
  @Override
  public void privilegedInit() throws SyncException {
    if (!(nft instanceof NftCommand command)) {
      return;
    }
    try {
      boolean comments = NftablesSupportCheck.check(settings.family(), runner, command,
          System.getProperty("os.version"), System.getenv(NftablesSupportCheck.SKIP_KERNEL_CHECK_ENV));
      command.setObjectComments(comments);
      if (!comments) {
        Log.info("nft does not accept comments on tables, chains and sets; leaving them out");
      }
    } catch (NftablesSupportCheck.UnsupportedException e) {
      throw new SyncException(e.getMessage(), e);
    }
    if ("off".equals(System.getenv(NETLINK_ENV))) {
      Log.info("nftables: netlink switched off by " + NETLINK_ENV + "; every transaction goes through nft");
    } else {
      useNetlink(NetlinkNftables.open(settings.family(), runner.netns()));
    }
  }

  /** Sends partial syncs over this netlink socket when they can go that way (null: never). */
  synchronized void useNetlink(NetlinkPath netlink) {
    this.netlink = netlink;
    this.generations = netlink == null ? null : sharedGenerations;
    this.reader = netlink != null ? netlink : nft instanceof TableReader r ? r : null;
    if (netlink != null) {
      Log.info("nftables: transactions go to nf_tables over netlink (nft for what the encoder does not write)",
          "family", settings.family());
    }
  }

  /**
   * Applies a transaction: over netlink when it can go that way (returns true), else through nft.
   * With a netlink socket, the commit is bracketed by nf_tables generation readings.
   */
  private boolean apply(Transaction tx) throws NftablesException {
    long before = generation();
    boolean viaNetlink = netlink != null && netlink.tryRun(tx);
    if (!viaNetlink) {
      nft.run(tx);
    }
    long after = generation();
    if (before >= 0 && after >= 0) {
      generations.committed(before, after);
    }
    lastCommit = new long[] {before, after};
    return viaNetlink;
  }

  /** nf_tables' generation number, or -1 without a netlink socket or when it cannot be read. */
  private long generation() {
    if (netlink == null) {
      return -1;
    }
    try {
      return netlink.generation();
    } catch (java.io.IOException e) {
      Log.v(2).info("nftables: cannot read the generation number", "err", e.getMessage());
      return -1;
    }
  }

  /** True when this family's table was verified and nobody else has committed since (see CommitGenerations). */
  private boolean tableUnchangedByOthers() {
    long now = generation();
    return now >= 0 && generations.unchanged(settings.family(), now)
        && Objects.equals(nodePortAddresses.resolve(), appliedNodePortIPs);
  }

  @Override
  public synchronized SyncResult sync(ProxyState state) throws SyncException {
    isolationRounds = MAX_ISOLATION_ROUNDS;
    return syncWithout(state);
  }

  @Override
  public synchronized List<ServicePortName> takeRefusedServicePorts() {
    return refused.takeUnreported();
  }

  /** At most this many refused service ports are found and left out per sync (each round is one nft --check). */
  static final int MAX_ISOLATION_ROUNDS = 3;

  /**
   * After the kernel refused a full sync: the service ports whose commands it refuses on their
   * own (nft --check, one command a line), so that the sync can be retried without them.
   */
  private List<ServicePortName> refusedServicePorts(Transaction tx) {
    List<ServicePortName> found = new ArrayList<>();
    for (int index : nft.refusedCommands(tx)) {
      ServicePortName owner = owners.get(tx.operations().get(index).object());
      if (owner != null && !found.contains(owner)) {
        found.add(owner);
      }
    }
    return found;
  }

  private SyncResult syncWithout(ProxyState unfiltered) throws SyncException {
    ProxyState state = refused.filter(unfiltered);
    Instant start = clock.instant();
    deleteStaleChains(start);
    Duration period = settings.syncPeriod() == null || settings.syncPeriod().isZero()
        ? SyncSettings.DEFAULT_SYNC_PERIOD : settings.syncPeriod();
    boolean forced = next != SyncKind.PARTIAL || lastFullSync == null || !appliedServiceCIDRs.equals(state.serviceCIDRs());
    boolean full = forced || !start.isBefore(lastFullSync.plus(period));
    if (full && !forced && tableUnchangedByOthers()) {
      // The periodic resync: nobody else has committed since the table was last verified, so it
      // holds exactly what this agent wrote, and the model's changes are all there is to send.
      full = false;
      lastFullSync = start;
      Log.v(4).info("nftables resync: table unchanged since verified; listing skipped", "family", settings.family());
    }
    Transaction tx;
    Transaction built = null;
    boolean viaNetlink = false;
    try {
      tx = full ? fullTransaction(state, start) : partialTransaction(state, start);
      built = tx;
      lastTransaction = tx;
      if (!tx.isEmpty()) {
        viaNetlink = apply(tx);
      }
    } catch (NftablesException e) {
      // A failed load stays a load; a failed full sync is followed by a rewrite, a failed partial one by a reconcile.
      next = next == SyncKind.LOAD ? SyncKind.LOAD : full ? SyncKind.REWRITE : SyncKind.RECONCILE;
      syncFailures++;
      metrics.incNftablesSyncFailures(settings.family().name());
      if (built != null) {
        failedTransactions.log(built, settings.family(), !(nft instanceof NftCommand c) || c.objectComments());
      }
      String kind = full ? "full" : "partial";
      List<ServicePortName> culprits = full && built != null && isolationRounds-- > 0
          ? refusedServicePorts(built) : List.of();
      if (!culprits.isEmpty()) {
        for (ServicePortName spn : culprits) {
          refused.add(state, spn);
          Log.error("nftables: the kernel refuses the rules of this service port; programming every other one and"
              + " leaving it out until it changes (check its names, ports and session affinity timeout)",
              "servicePort", spn, "err", e.getMessage());
        }
        return syncWithout(unfiltered);
      }
      throw new SyncException("nftables " + kind + " sync failed; will retry with a full sync: " + e.getMessage(), e);
    }
    next = SyncKind.PARTIAL;
    if (full) {
      lastFullSync = start;
      if (reconciled && generations != null && listedAt >= 0) {
        // Nothing sent: one reading now stands for both sides of the (absent) commit.
        long now = tx.isEmpty() ? generation() : -1;
        long[] bracket = tx.isEmpty() ? new long[] {now, now} : lastCommit;
        generations.reconciled(settings.family(), listedAt, bracket[0], bracket[1]);
      }
    }
    int noLocalInternal = 0;
    int noLocalExternal = 0;
    for (Applied a : applied.values()) {
      noLocalInternal += a.rules().noLocalInternal() ? 1 : 0;
      noLocalExternal += a.rules().noLocalExternal() ? 1 : 0;
    }
    if (Log.enabled(4)) {
      Log.v(4).info("nftables sync done", "kind", full ? (reconciled ? "reconcile" : "full") : "partial",
          "commands", tx.size(), "via", tx.isEmpty() ? "-" : viaNetlink ? "netlink" : "nft",
          "elapsed", Duration.between(start, clock.instant()));
    }
    return new SyncResult(full, Map.of(Transaction.TABLE, fixedRuleCount + serviceRuleCount),
        noLocalInternal, noLocalExternal);
  }

  @Override
  public java.util.Optional<dev.kubeproxy.proxy.ProgrammedRules> programmedRules(
      ServicePort port, List<Endpoint> endpoints) {
    NftablesRulesReader reader = new NftablesRulesReader(settings.family());
    if (nft instanceof DryRunNftables dryRun) {
      return java.util.Optional.of(reader.fromDryRun(dryRun.printedLines(), port, endpoints));
    }
    return nft instanceof NftCommand ? java.util.Optional.of(reader.fromKernel(runner, port, endpoints))
        : java.util.Optional.empty();
  }

  /** Deletes the kube-proxy table of this family; harmless when it is not there. */
  @Override
  public synchronized void cleanup() throws SyncException {
    try {
      nft.run(new Transaction().delete(new Table(null)));
    } catch (NftablesException e) {
      if (!e.notFound()) {
        throw new SyncException("cannot delete table " + Transaction.familyKeyword(settings.family())
            + " kube-proxy: " + e.getMessage(), e);
      }
    }
    next = SyncKind.LOAD;
    applied.clear();
    elements.clear();
    staleChains.clear();
    declaredShards.clear();
  }

  /**
   * Removes the nftables rules of one family (for --cleanup and for starting in another mode).
   * Returns false (after logging why) when the table exists but could not be deleted.
   */
  public static boolean cleanupTable(IpFamily family, CommandRunner runner) {
    try {
      new NftCommand(family, runner).run(new Transaction().delete(new Table(null)));
      return true;
    } catch (NftablesException e) {
      if (e.notFound()) {
        return true;
      }
      Log.error("Cannot delete the kube-proxy nftables table", "family", Transaction.familyKeyword(family),
          "err", e.getMessage());
      return false;
    }
  }

  /** The last transaction built (applied or failed), for tests and the benchmark. */
  synchronized Transaction lastTransaction() {
    return lastTransaction;
  }

  synchronized boolean lastFullSyncReconciled() {
    return reconciled;
  }

  synchronized long syncFailures() {
    return syncFailures;
  }

  synchronized long cleanupFailures() {
    return cleanupFailures;
  }

  synchronized Set<String> staleChainNames() {
    return Set.copyOf(staleChains.keySet());
  }

  /** Forces the next sync to be a full one. */
  synchronized void requestFullSync() {
    fullSyncNeeded();
  }

  /** The next sync reads the table back (unless it has to write everything anyway). */
  private void fullSyncNeeded() {
    if (next == SyncKind.PARTIAL) {
      next = SyncKind.RECONCILE;
    }
  }

  // ---------------------------------------------------------------------------------------------

  private Transaction fullTransaction(ProxyState state, Instant start) throws NftablesException {
    // After the first sync, read the whole table and send only the differences (reconcile); a
    // rewrite of everything only at start and after a reconcile failed (the safety net).
    boolean load = next == SyncKind.LOAD;
    boolean rewriteAll = load || next == SyncKind.REWRITE || reader == null;
    listedAt = rewriteAll ? -1 : generation();
    KernelTable kernel = rewriteAll ? KernelTable.absent() : reader.read();
    Nftables.TableContents existing = rewriteAll ? nft.list() : Nftables.TableContents.absent();
    appliedNodePortIPs = nodePortAddresses.resolve();
    FixedRuleset fixed = new FixedRuleset(syntax, settings.masqueradeMark(), state.serviceCIDRs(),
        appliedNodePortIPs);
    Transaction tx = new Transaction();
    fixed.write(tx, load);
    elements.clear();
    Map<ServicePortName, Applied> next = new HashMap<>();
    Set<String> desiredChains = new HashSet<>();
    Set<String> desiredSets = new HashSet<>();
    Set<String> shards = new HashSet<>();
    Map<NftObject, ServicePortName> owned = new java.util.IdentityHashMap<>();
    owners = owned;
    int rules = 0;
    List<Element> newElements = new ArrayList<>();
    for (ServicePortName spn : sortedNames(state.services().keySet())) {
      ServicePort svc = state.services().get(spn);
      List<Endpoint> eps = state.endpointsOf(spn);
      Applied prev = applied.get(spn);
      ServicePortRules r = !state.changedServices().contains(spn.service()) && sameInputs(prev, svc, eps)
          ? prev.rules()
          : ServicePortRules.compute(ServicePortPlan.of(svc, eps, state.nodeLabels()), settings, syntax, slots);
      next.put(spn, new Applied(svc, eps, r));
      for (String chain : r.chains().keySet()) {
        Chain c = Chain.regular(chain);
        owned.put(c, spn);
        tx.add(c);
        tx.flush(c);
        desiredChains.add(chain);
      }
      for (NftSet set : r.affinitySets()) {
        owned.put(set, spn);
        tx.add(set);
        desiredSets.add(set.name());
      }
      r.elements().forEach(e -> owned.put(e, spn));
      for (String shard : r.targetMaps()) {
        if (shards.add(shard)) { // declared and emptied before the first rule that picks from it
          NftMap map = EndpointSlots.declaration(shard, syntax);
          tx.add(map);
          tx.flush(map);
        }
      }
      for (List<Rule> chainRules : r.chains().values()) {
        for (Rule rule : chainRules) {
          owned.put(rule, spn);
          tx.add(rule);
        }
      }
      newElements.addAll(elements.addFresh(r.elements()));
      rules += r.ruleCount();
    }
    // After every chain exists; grouped per set or map so that nft gets one command per container.
    for (Element e : groupedByContainer(newElements)) {
      tx.add(e);
    }
    slots.retainOnly(desiredChains);
    if (kernel.exists()) {
      tx = reconcile(tx, kernel, start);
    } else {
      // Leftovers: service chains nobody uses any more are emptied now and deleted after the grace.
      if (!existing.exists()) {
        staleChains.clear();
      }
      staleChains.keySet().removeIf(name -> desiredChains.contains(name) || !existing.chains().contains(name));
      for (String chain : existing.chains()) {
        if (chain.indexOf('/') >= 0 && !desiredChains.contains(chain)) {
          tx.flush(Chain.regular(chain));
          staleChains.putIfAbsent(chain, start);
        }
      }
      for (String set : existing.sets()) {
        if (set.startsWith("affinity-") && !desiredSets.contains(set)) {
          tx.delete(NftSet.of(set, "", null));
        }
      }
      if (load && existing.exists()) {
        // A table of an earlier version: its one endpoint map per protocol, unreferenced once the
        // chains above are rewritten, goes (added first so that deleting cannot fail).
        for (String proto : List.of("tcp", "udp", "sctp")) {
          NftMap legacy = EndpointSlots.declaration(EndpointSlots.PREFIX + proto + "-legacy", syntax);
          legacy = new NftMap(EndpointSlots.EARLIER_MAPS + proto, legacy.type(), null);
          tx.add(legacy);
          tx.delete(legacy);
        }
      }
    }
    reconciled = kernel.exists();
    declaredShards.clear();
    declaredShards.addAll(shards);
    applied.clear();
    applied.putAll(next);
    appliedServiceCIDRs = List.copyOf(state.serviceCIDRs());
    fixedRuleCount = fixed.ruleCount();
    serviceRuleCount = rules;
    return tx;
  }

  /** The reconciling form of a full sync: only what differs between the kernel and the model. */
  private Transaction reconcile(Transaction full, KernelTable kernel, Instant start) {
    TableReconciler.Result r = TableReconciler.reconcile(full, kernel, reader);
    Set<String> unexpected = new HashSet<>(r.unexpectedChains());
    staleChains.keySet().removeIf(name -> !unexpected.contains(name));
    for (String chain : r.unexpectedChains()) {
      staleChains.putIfAbsent(chain, start);
    }
    if (r.transaction().size() == 1) {
      return new Transaction(); // only "add table": the table, just listed, is as it should be
    }
    if (r.rewrittenChains() > 0 || r.elementChanges() > 0 || !unexpected.isEmpty()) {
      Log.v(2).info("nftables resync found differences", "rewrittenChains", r.rewrittenChains(),
          "elementChanges", r.elementChanges(), "unexpectedChains", unexpected.size());
    }
    return r.transaction();
  }

  private Transaction partialTransaction(ProxyState state, Instant start) {
    List<String> newChains = new ArrayList<>();
    List<NftSet> newSets = new ArrayList<>();
    Map<String, List<Rule>> rewrites = new LinkedHashMap<>();
    Set<String> rewrittenExisting = new HashSet<>();
    List<String> nowStale = new ArrayList<>();
    List<String> goneSets = new ArrayList<>();
    List<Element> removed = new ArrayList<>();
    List<Element> added = new ArrayList<>();

    // The model's one change set (FamilyProxier: every service after a node-label change, and the
    // services of a failed sync again): the ports of those services, now and as applied.
    Set<dev.kubeproxy.proxy.NamespacedName> changedServices = state.changedServices();
    List<ServicePortName> changed = new ArrayList<>();
    if (!changedServices.isEmpty()) {
      for (ServicePortName spn : state.services().keySet()) {
        if (changedServices.contains(spn.service())) {
          changed.add(spn);
        }
      }
      for (ServicePortName spn : applied.keySet()) {
        if (changedServices.contains(spn.service()) && !state.services().containsKey(spn)) {
          changed.add(spn);
        }
      }
    }
    for (ServicePortName spn : sortedNames(changed)) {
      ServicePort svc = state.services().get(spn);
      Applied prev = applied.get(spn);
      ServicePortRules before = prev == null ? null : prev.rules();
      ServicePortRules after = null;
      if (svc != null) {
        List<Endpoint> eps = state.endpointsOf(spn);
        after = ServicePortRules.compute(ServicePortPlan.of(svc, eps, state.nodeLabels()), settings, syntax, slots);
        applied.put(spn, new Applied(svc, eps, after));
      } else {
        applied.remove(spn);
      }
      if (Objects.equals(before, after)) {
        continue;
      }
      Map<String, List<Rule>> oldChains = before == null ? Map.of() : before.chains();
      Map<String, List<Rule>> newChainMap = after == null ? Map.of() : after.chains();
      for (Map.Entry<String, List<Rule>> c : newChainMap.entrySet()) {
        List<Rule> old = oldChains.get(c.getKey());
        if (old == null) {
          newChains.add(c.getKey());
          staleChains.remove(c.getKey());
          rewrites.put(c.getKey(), c.getValue());
        } else if (!old.equals(c.getValue())) {
          rewrittenExisting.add(c.getKey());
          rewrites.put(c.getKey(), c.getValue());
        }
      }
      for (String chain : oldChains.keySet()) {
        if (!newChainMap.containsKey(chain)) {
          nowStale.add(chain);
          slots.release(chain);
        }
      }
      Map<String, NftSet> oldSets = new HashMap<>();
      if (before != null) {
        before.affinitySets().forEach(s -> oldSets.put(s.name(), s));
      }
      if (after != null) {
        for (NftSet s : after.affinitySets()) {
          NftSet old = oldSets.remove(s.name());
          if (!s.equals(old)) {
            newSets.add(s);
          }
        }
      }
      goneSets.addAll(oldSets.keySet());
      if (before != null) {
        removed.addAll(before.elements());
        serviceRuleCount -= before.ruleCount();
      }
      if (after != null) {
        added.addAll(after.elements());
        serviceRuleCount += after.ruleCount();
      }
    }
    ElementIndex.Delta delta = elements.update(removed, added);

    Transaction tx = new Transaction();
    for (String chain : newChains) {
      tx.add(Chain.regular(chain));
    }
    for (NftSet set : newSets) {
      tx.add(set);
    }
    for (Element e : added) {
      if (EndpointSlots.isShard(e.container()) && declaredShards.add(e.container())) {
        tx.add(EndpointSlots.declaration(e.container(), syntax)); // a shard opened since the last full sync
      }
    }
    for (Element e : groupedByContainer(delta.deletions())) {
      tx.delete(e);
    }
    for (Map.Entry<String, List<Rule>> c : rewrites.entrySet()) {
      if (rewrittenExisting.contains(c.getKey())) {
        tx.flush(Chain.regular(c.getKey()));
      }
      for (Rule rule : c.getValue()) {
        tx.add(rule);
      }
    }
    for (Element e : groupedByContainer(delta.additions())) {
      tx.add(e);
    }
    for (String chain : nowStale) {
      tx.flush(Chain.regular(chain));
      staleChains.put(chain, start);
    }
    for (String set : goneSets) {
      tx.delete(NftSet.of(set, "", null));
    }
    return tx;
  }

  /** Deletes chains that have been unused for at least the grace period, in their own transaction. */
  private void deleteStaleChains(Instant start) {
    if (staleChains.isEmpty()) {
      return;
    }
    Transaction tx = new Transaction();
    List<String> deleting = new ArrayList<>();
    for (Map.Entry<String, Instant> e : staleChains.entrySet()) {
      if (!e.getValue().plus(STALE_CHAIN_GRACE).isAfter(start)) {
        tx.delete(Chain.regular(e.getKey()));
        deleting.add(e.getKey());
      }
    }
    if (tx.isEmpty()) {
      return;
    }
    try {
      apply(tx);
      for (String name : deleting) {
        staleChains.remove(name);
      }
    } catch (NftablesException e) {
      cleanupFailures++;
      metrics.incNftablesCleanupFailures(settings.family().name());
      fullSyncNeeded();
      Log.error("Unable to delete stale chains; will retry later", "err", e.getMessage());
    }
  }

  /** The elements reordered so that those of one container are adjacent (first-seen order kept). */
  private static List<Element> groupedByContainer(List<Element> list) {
    Map<String, List<Element>> groups = new LinkedHashMap<>();
    for (Element e : list) {
      groups.computeIfAbsent(e.container(), k -> new ArrayList<>()).add(e);
    }
    List<Element> out = new ArrayList<>(list.size());
    groups.values().forEach(out::addAll);
    return out;
  }

  private static boolean sameInputs(Applied prev, ServicePort svc, List<Endpoint> eps) {
    return prev != null && (prev.svc() == svc || prev.svc().equals(svc))
        && (prev.endpoints() == eps || prev.endpoints().equals(eps));
  }

  /** Service ports in the order of their names, so the transaction text is reproducible. */
  private static List<ServicePortName> sortedNames(java.util.Collection<ServicePortName> names) {
    List<Map.Entry<String, ServicePortName>> keyed = new ArrayList<>(names.size());
    for (ServicePortName n : names) {
      keyed.add(Map.entry(n.toString() + '\u0000' + n.protocol(), n));
    }
    keyed.sort(Map.Entry.comparingByKey());
    List<ServicePortName> out = new ArrayList<>(keyed.size());
    for (Iterator<Map.Entry<String, ServicePortName>> it = keyed.iterator(); it.hasNext(); ) {
      out.add(it.next().getValue());
    }
    return out;
  }
}
