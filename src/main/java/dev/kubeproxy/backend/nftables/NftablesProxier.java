package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Nftables;
import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.Table;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.config.SyncSettings;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProgrammedRules;
import dev.kubeproxy.model.ProgrammedRuleset;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.SyncResult;
import dev.kubeproxy.backend.nftables.netlink.NetlinkNftables;
import dev.kubeproxy.backend.nftables.netlink.NetlinkPath;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The nftables backend for one family (pkg/proxy/nftables/proxier.go Proxier). A sync goes plan
 * ({@link SyncPlanner}: load, rewrite, reconcile or partial, and why), build
 * ({@link FullTransactionBuilder}, {@link PartialTransactionBuilder}; a reconcile compares the
 * desired table with the one read back, {@link TableReconciler}), commit ({@link Committer}:
 * netlink or nft, with generation readings that let a periodic resync skip the read-back; a load
 * into a namespace without the table goes in pieces while it is built, {@link PipelinedLoad}), and
 * record ({@link AppliedTable}, {@link StaleChains}). Later full syncs (hourly as upstream's, after
 * a failure, on a ServiceCIDR change, or when someone else wrote) send only what differs from the
 * kernel's table; syncs in between send what changed in the model. Unused chains are flushed at
 * once and deleted after a second. Service ports whose objects the kernel refuses are left out and
 * the others synced again at once ({@link SyncFailures}); the result names them.
 *
 * <p>Called by the family's proxier on its sync worker, one call at a time.
 */
public class NftablesProxier implements ProxyBackend {
  private final ProxierSettings settings;
  private final CommandRunner runner;
  private final Nftables nft;
  private final Clock clock;
  private final NodePortAddresses nodePortAddresses;
  private final SyncPlanner planner = new SyncPlanner();
  private final AppliedTable applied = new AppliedTable();
  private final StaleChains staleChains = new StaleChains();
  private final DesiredElements desiredElements = new DesiredElements();
  /** Where a reconcile's read-back waits to be compared (kept across resyncs, like the desired elements). */
  private final TableReadAhead.Batches readBatches = new TableReadAhead.Batches();
  private final FullTransactionBuilder fullBuilder;
  private final PartialTransactionBuilder partialBuilder;
  private final Committer committer;
  private final SyncFailures failures;
  /** Whether {@link #lastTransaction} is kept (tests read it; it can hold the whole table). */
  private final boolean keepLastTransaction;
  private Transaction lastTransaction;
  /** Whether the last full sync was a reconcile (kernel read and only differences sent). */
  private boolean reconciled;
  /** Whether the table was verified at the last drift check (or by the reconcile since). */
  private boolean verifiedAtLastCheck;
  /** The generation at which the current full sync listed the table (-1: not listed or not read). */
  private long listedAt = -1;
  /** Feature gate NFTablesNetlink (on unless the public constructor was told otherwise). */
  private boolean netlinkGate = true;
  /** The userspace listeners of localhost TCP NodePorts (none unless {@link #enableLocalhostNodePorts}). */
  final LocalNodePortProxy localhostProxy;

  /**
   * @param generations the nf_tables commit tracking of the namespace the runner writes to, the same
   *                    instance for both families
   */
  public NftablesProxier(
      ProxierSettings settings, CommandRunner runner, ProxyMetrics metrics, CommitGenerations generations) {
    this(settings, runner, metrics, generations, true);
  }

  /** @param netlinkGate feature gate NFTablesNetlink: off opens no netlink socket, and nft does every transaction and read-back */
  public NftablesProxier(ProxierSettings settings, CommandRunner runner, ProxyMetrics metrics,
      CommitGenerations generations, boolean netlinkGate) {
    this(settings, runner, settings.dryRun() ? new DryRunNftables(settings.family(), settings.dryRunOutput())
        : new NftCommand(settings.family(), runner), metrics, Clock.systemUTC(),
        NodePortAddresses.fromIpCommand(runner), generations, false);
    this.netlinkGate = netlinkGate;
  }

  /** For tests: any {@link Nftables}, metrics, clock and interface addresses; keeps the last transaction. */
  NftablesProxier(ProxierSettings settings, CommandRunner runner, Nftables nft, ProxyMetrics metrics,
      Clock clock, Supplier<List<String>> interfaceAddresses) {
    this(settings, runner, nft, metrics, clock, interfaceAddresses, new CommitGenerations());
  }

  NftablesProxier(ProxierSettings settings, CommandRunner runner, Nftables nft, ProxyMetrics metrics,
      Clock clock, Supplier<List<String>> interfaceAddresses, CommitGenerations generations) {
    this(settings, runner, nft, metrics, clock, interfaceAddresses, generations, true);
  }

  private NftablesProxier(ProxierSettings settings, CommandRunner runner, Nftables nft, ProxyMetrics metrics,
      Clock clock, Supplier<List<String>> interfaceAddresses, CommitGenerations generations,
      boolean keepLastTransaction) {
    this.settings = settings;
    this.runner = runner;
    this.nft = nft;
    this.clock = clock;
    this.keepLastTransaction = keepLastTransaction;
    this.localhostProxy = new LocalNodePortProxy(settings.family(), clock, metrics, runner.netns());
    FamilySyntax syntax = new FamilySyntax(settings.family());
    this.nodePortAddresses = new NodePortAddresses(settings.nodePortAddresses(), interfaceAddresses);
    this.fullBuilder = new FullTransactionBuilder(settings, syntax, applied);
    this.partialBuilder = new PartialTransactionBuilder(settings, syntax, applied, staleChains);
    this.committer = new Committer(settings.family(), nft, generations);
    this.failures = new SyncFailures(settings.family(), nft, metrics, clock);
    metrics.addLocalhostNodePortRejected(settings.family().name(), () -> applied.localhostRejects.packets(nft));
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
    if (!netlinkGate) {
      Log.info("nftables: the NFTablesNetlink feature gate is off; every transaction goes through nft");
    } else {
      useNetlink(NetlinkNftables.open(settings.family(), runner.netns()));
    }
  }

  /**
   * Feature gate KubeProxyNFTablesLocalhostNodePorts (pkg/proxy/nftables/proxier.go NewProxier): TCP NodePorts
   * served on 127.0.0.1 or ::1 by a userspace proxy when this family's nodePortAddresses name a loopback
   * CIDR explicitly ("all" does not count); a dry run listens on nothing. Answers whether they are. Loopback
   * NodePorts of other protocols (all, without the proxy) are rejected and counted ({@link LocalhostRejects}).
   */
  public synchronized boolean enableLocalhostNodePorts() {
    boolean proxied = nodePortAddresses.containsExplicitLoopback();
    localhostProxy.enable(proxied && !settings.dryRun());
    applied.localhostRejects.enable(proxied);
    return proxied;
  }

  /** Closes the localhost NodePort listeners and the connections through them (at shutdown). */
  @Override
  public synchronized void close() {
    localhostProxy.shutdown();
  }

  /** Sends transactions over this netlink socket when they can go that way (null: never). */
  public synchronized void useNetlink(NetlinkPath netlink) {
    committer.useNetlink(netlink);
  }

  /** Whether transactions go over a netlink socket (after {@link #privilegedInit}). */
  synchronized boolean viaNetlink() {
    return committer.viaNetlink();
  }

  /**
   * Syncs. Service ports whose objects the kernel refuses in a full sync are left out (logged) and the others synced
   * again at once, up to {@link SyncFailures#MAX_ISOLATION_ROUNDS} times; the result names the ports left out.
   */
  @Override
  public synchronized SyncResult sync(ProxyState state) throws SyncException {
    failures.syncStarts();
    while (true) {
      ProxyState filtered = failures.withoutRefused(state);
      Attempt attempt = attempt(filtered);
      if (attempt.error() == null) {
        localhostProxy.sync(filtered); // the listeners follow what this sync applied, as upstream's
        return attempt.result().withRefused(failures.takeRefused());
      }
      boolean full = attempt.plan().full();
      if (failures.syncFailed(filtered, attempt.transaction(), full, attempt.error(), applied)
          == SyncFailures.Decision.GIVE_UP) {
        throw new SyncException("nftables " + (full ? "full" : "partial")
            + " sync failed; will retry with a full sync: " + attempt.error().getMessage(), attempt.error());
      }
    }
  }

  /** One attempt's outcome: its result, or the transaction the kernel refused (null: not built) and why. */
  private record Attempt(SyncPlan plan, SyncResult result, Transaction transaction, NftablesException error) {}

  /** A sync's transaction, and whether it already went to the kernel while it was built ({@link PipelinedLoad}). */
  private record Built(Transaction tx, boolean sent) {}

  /** One attempt: plan, build, commit, record. */
  private Attempt attempt(ProxyState state) {
    Instant start = clock.instant();
    deleteStaleChains(start);
    Duration period = SyncSettings.FULL_SYNC_PERIOD;
    // The kernel reading the plan may need is made before planning, and only when it can matter.
    boolean unchanged = planner.periodicResyncDue(state.serviceCIDRs(), start, period) && tableUnchangedByOthers();
    SyncPlan plan = planner.plan(state.serviceCIDRs(), start, period, committer.reader() != null, unchanged);
    Built built = null;
    boolean viaNetlink = false;
    try {
      built = plan.full() ? fullTransaction(state, plan, start) : new Built(partialBuilder.build(state, start), false);
      lastTransaction = keepLastTransaction ? built.tx() : null;
      viaNetlink = built.sent() || !built.tx().isEmpty() && committer.apply(built.tx());
    } catch (NftablesException e) {
      planner.failed(plan);
      return new Attempt(plan, null, built == null ? null : built.tx(), e);
    }
    Transaction tx = built.tx();
    planner.succeeded(plan, start, state.serviceCIDRs());
    if (plan.full() && reconciled) {
      committer.reconciled(listedAt, !tx.isEmpty());
      verifiedAtLastCheck = true;
    }
    if (Log.enabled(4)) {
      Log.v(4).info("nftables sync done", "kind", plan.full() ? (reconciled ? "reconcile" : "full") : "partial",
          "reason", plan.reason(), "commands", tx.size(), "via", built.sent() ? "pieces (PipelinedLoad's line)"
          : tx.isEmpty() ? "-" : viaNetlink ? "netlink" : "nft", "elapsed", Duration.between(start, clock.instant()));
    }
    return new Attempt(plan, new SyncResult(plan.full(), Map.of(Transaction.TABLE, applied.ruleCount()),
        applied.noLocalInternal(), applied.noLocalExternal()), tx, null);
  }

  /**
   * Every syncPeriod, one reading of nf_tables' commit generation tells whether anyone else has committed since the
   * table was last verified; without one nothing is checked and the hourly full sync repairs, as upstream's.
   */
  @Override
  public synchronized boolean rulesDisturbed() {
    if (settings.dryRun() || !verifiedAtLastCheck) {
      verifiedAtLastCheck = !settings.dryRun() && committer.unchangedByOthers();
      return false;
    }
    verifiedAtLastCheck = committer.unchangedByOthers();
    if (verifiedAtLastCheck || committer.generation() < 0) {
      return false;
    }
    Log.warn("nftables table was changed by something else; the next sync reads it back", "ipFamily",
        settings.family());
    planner.reconcileNext("table changed by something else");
    return true;
  }

  /** True when this family's table was verified, nobody else has committed since and the NodePort addresses are the same. */
  private boolean tableUnchangedByOthers() {
    return committer.unchangedByOthers() && Objects.equals(nodePortAddresses.resolve(), applied.nodePortIPs);
  }

  /** The whole table: sent whole at a load or a rewrite (leftovers removed), or compared with the kernel's at a reconcile. */
  private Built fullTransaction(ProxyState state, SyncPlan plan, Instant start) throws NftablesException {
    if (plan.kind() == SyncKind.RECONCILE) {
      listedAt = committer.generation();
      // The kernel's table is read on another thread while the desired one is built and compared.
      try (TableReadAhead kernel = TableReadAhead.start(committer.reader(), "nftables-read-" + settings.family(),
          readBatches)) {
        DesiredTable desired = fullBuilder.buildForReconcile(state, nodePortAddresses.resolve());
        Optional<TableReconciler.Result> differences = TableReconciler.reconcile(desired, kernel, desiredElements);
        reconciled = differences.isPresent();
        if (reconciled) {
          return new Built(reconcile(differences.get(), start), false);
        }
      }
      // No table: written whole, as a rewrite (the ports' rules just built are reused).
      FullTransactionBuilder.Desired whole = fullBuilder.build(state, SyncKind.REWRITE, nodePortAddresses.resolve());
      fullBuilder.removeLeftovers(whole, Nftables.TableContents.absent(), false, staleChains, start);
      return new Built(whole.transaction(), false);
    }
    listedAt = -1;
    reconciled = false;
    Nftables.TableContents existing = committer.list();
    if (plan.kind() == SyncKind.LOAD && !existing.exists() && committer.viaNetlink()) {
      Transaction sent = new PipelinedLoad(settings.family(), committer, keepLastTransaction)
          .run(fullBuilder, state, nodePortAddresses.resolve());
      if (sent != null) {
        staleChains.clear(); // no table, no chain of it to delete
        return new Built(sent, true);
      }
    }
    FullTransactionBuilder.Desired desired = fullBuilder.build(state, plan.kind(), nodePortAddresses.resolve());
    fullBuilder.removeLeftovers(desired, existing, plan.kind() == SyncKind.LOAD, staleChains, start);
    return new Built(desired.transaction(), false);
  }

  /** The reconciling form of a full sync: only what differs between the kernel and the model. */
  private Transaction reconcile(TableReconciler.Result r, Instant start) {
    Set<String> unexpected = new HashSet<>(r.unexpectedChains());
    staleChains.retainOnly(unexpected::contains);
    for (String chain : r.unexpectedChains()) {
      staleChains.mark(chain, start);
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

  /** Deletes chains that have been unused for at least the grace period, in their own transaction. */
  private void deleteStaleChains(Instant start) {
    try {
      staleChains.deleteDue(start, committer);
    } catch (NftablesException e) {
      failures.cleanupFailed();
      planner.reconcileNext("stale chains not deleted");
      Log.error("Unable to delete stale chains; will retry later", "err", e.getMessage());
    }
  }

  @Override
  public Optional<ProgrammedRules> programmedRules(ServicePort port, List<Endpoint> endpoints) {
    NftablesRulesReader reader = new NftablesRulesReader(settings.family());
    if (nft instanceof DryRunNftables dryRun) {
      return Optional.of(reader.fromDryRun(dryRun.printedLines(), port, endpoints));
    }
    return nft instanceof NftCommand ? Optional.of(reader.fromKernel(runner, port, endpoints)) : Optional.empty();
  }

  /**
   * The kernel's table as {@code nft -j} lists it, or in --dry-run the commands printed since the last full
   * transaction: the tracer reads either itself, never through this backend's renderer or encoder.
   */
  @Override
  public Optional<ProgrammedRuleset> programmedRuleset() {
    if (nft instanceof DryRunNftables dryRun) {
      return Optional.of(dryRun.programmedRuleset());
    }
    return Optional.of(NftablesRulesReader.wholeFromKernel(runner, settings.family()));
  }

  /** Deletes the kube-proxy table of this family; harmless when it is not there. */
  @Override
  public synchronized void cleanup() throws SyncException {
    close();
    try {
      nft.run(new Transaction().delete(new Table(null)));
    } catch (NftablesException e) {
      if (!e.notFound()) {
        throw new SyncException("cannot delete table " + Transaction.familyKeyword(settings.family())
            + " kube-proxy: " + e.getMessage(), e);
      }
    }
    planner.reset("after cleanup");
    applied.clear();
    staleChains.clear();
  }

  /** The last transaction built (applied or failed), for tests and the benchmark (null in the agent). */
  public synchronized Transaction lastTransaction() {
    return lastTransaction;
  }

  public synchronized boolean lastFullSyncReconciled() {
    return reconciled;
  }

  synchronized long syncFailures() {
    return failures.syncFailures();
  }

  synchronized long cleanupFailures() {
    return failures.cleanupFailures();
  }

  synchronized Set<String> staleChainNames() {
    return staleChains.names();
  }

  /** Forces the next sync to be a full one. */
  public synchronized void requestFullSync() {
    planner.reconcileNext("requested");
  }
}
