package dev.kubeproxy;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.EventBusCodecs;
import dev.kubeproxy.runtime.AgentContext;
import dev.kubeproxy.runtime.ProcessExit;

import dev.kubeproxy.cli.JsonArgs;
import dev.kubeproxy.cli.Startup;
import dev.kubeproxy.cli.Version;
import dev.kubeproxy.cluster.ClusterSource;
import dev.kubeproxy.cluster.ClusterWatchVerticle;
import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.messages.NodeInfo;
import dev.kubeproxy.cluster.NodeInfoResolver;
import dev.kubeproxy.runtime.ConfigVerticle;
import dev.kubeproxy.config.FeatureGates;
import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.health.HealthzServerVerticle;
import dev.kubeproxy.health.ServiceHealthServerVerticle;
import dev.kubeproxy.logging.JulBridge;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.server.MetricsServerVerticle;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.runtime.PlatformSetup;
import dev.kubeproxy.runtime.ProxierVerticle;
import dev.kubeproxy.runtime.Proxiers;
import dev.kubeproxy.model.ProxyBackend;
import io.vertx.core.Future;
import io.vertx.core.Deployable;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.VerticleBase;
import java.time.Clock;

/**
 * The agent: deploys the verticles in upstream's start order (cmd/kube-proxy/app/server.go Run, newProxyServer, ProxyServer.Run) and turns any
 * agent.fatal message into "close Vert.x, exit 1".
 *
 * <p>{@code java -jar} builds it with the parsed flags ({@link Main}); {@code vertx run
 * dev.kubeproxy.AgentVerticle -conf file.json} builds it with no arguments, and it reads the same
 * flags from the JSON configuration ({@link JsonArgs}). Either way it deploys the {@link ConfigVerticle}
 * first, which reads the --config file, then completes and validates the configuration ({@link
 * Startup#prepare}) and starts the rest.
 */
public class AgentVerticle extends VerticleBase {
  /** upstream's --cleanup failure text. */
  public static final String CLEANUP_FAILED = "encountered an error while tearing down rules";

  private final Startup.Flags flags;
  private final ProcessExit processExit;

  /** For {@code vertx run}: the flags come from {@code config()}, and the verticle ends the process itself. */
  public AgentVerticle() {
    this(null, new SystemExit());
  }

  /** @param flags the parsed command line ({@link Startup#parse}), or null to read it from {@code config()} */
  public AgentVerticle(Startup.Flags flags, ProcessExit processExit) {
    this.flags = flags;
    this.processExit = processExit;
  }

  @Override
  public Future<?> start() {
    EventBusCodecs.register(vertx);
    Startup.Flags parsed = flags;
    if (parsed == null) {
      JulBridge.install();
      Startup.Parsed fromJson = Startup.parse(JsonArgs.toArgs(config()), System.out, System.err);
      if (fromJson instanceof Startup.Exit exit) {
        exit(exit.status());
        return Future.succeededFuture();
      }
      parsed = (Startup.Flags) fromJson;
    }
    // any agent.fatal message ends the process; listening before the config-file watch starts
    vertx.eventBus().<Object>consumer(EventBusAddresses.FATAL, msg -> {
      Log.error("Error running ProxyServer", "err", String.valueOf(msg.body()));
      Log.error("command failed", "err", String.valueOf(msg.body()));
      exit(1);
    });
    // 1. the --config file: read and watched by its verticle, first, as upstream's Complete reads it
    //    and starts its watch before anything else (an edit during start still restarts)
    Startup.Flags command = parsed;
    ConfigVerticle configFile = new ConfigVerticle(command.configFile());
    return vertx.deployVerticle(configFile).transform(read -> {
      // 2. Complete (flags over the file), logging, Validate, --write-config-to, the node name
      Startup.Outcome outcome = Startup.prepare(command, read.succeeded()
          ? Future.succeededFuture(configFile.loaded()) : Future.failedFuture(read.cause()));
      if (outcome instanceof Startup.Exit exit) {
        exit(exit.status());
        return Future.succeededFuture();
      }
      return run(((Startup.Run) outcome).options());
    });
  }

  private Future<?> run(AgentOptions options) {
    // A failed start fails this deployment: Main then exits 1 (vertx run's launcher exits 15).
    return startAgent(options).onFailure(err -> {
      Log.error("Error running ProxyServer", err);
      Log.error("command failed", "err", message(err));
    });
  }

  /**
   * Ends the process once the current event-loop task is over: an exit decided while this verticle
   * (or a child) is still starting would otherwise close Vert.x under a deployment in progress.
   */
  private void exit(int status) {
    context.runOnContext(v -> processExit.exit(vertx, status));
  }

  private Future<?> startAgent(AgentOptions options) {
    ProxyMode mode;
    try {
      mode = Proxiers.mode(options.config());
    } catch (Proxiers.ProxierCreationException e) {
      return Future.failedFuture(e);
    }
    // what every part shares, built once here and passed down
    AgentContext context = new AgentContext(new ProxyMetrics(), FeatureGates.of(options.config().featureGates),
        Clock.systemUTC(), new ProcessCommandRunner());
    Log.info("Version info", "version", Version.reported(options.flags().get("version")));
    Log.info("Java settings", "javaVersion", System.getProperty("java.version"),
        "availableProcessors", Runtime.getRuntime().availableProcessors(),
        "maxHeapBytes", Runtime.getRuntime().maxMemory());

    // 3. /livez from the start: with the API unreachable the node lookup's retries last longer
    //    than a liveness probe waits. Until the node is known, /healthz
    //    answers 503 with nodeEligible false (upstream v1.33: no Node, not eligible).
    return startHealthz(options, context)
        // 4. --cleanup; else the agent, with the leftovers of the modes not in use removed meanwhile
        .compose(v -> options.cleanup() ? cleanup(options, mode, context).mapEmpty()
            : runAgent(options, mode, context, removeLeftovers(options, mode, context)).mapEmpty());
  }

  /** The proxier health server, unless the process only cleans up or initializes and exits. */
  private Future<?> startHealthz(AgentOptions options, AgentContext context) {
    if (options.cleanup() || options.initOnly()) {
      return Future.succeededFuture();
    }
    return deployChild(HealthzServerVerticle.beforeTheNodeIsKnown(options, context.clock(), context.metrics()));
  }

  /** --cleanup: removes every rule kube-proxy creates and exits. */
  private Future<?> cleanup(AgentOptions options, ProxyMode mode, AgentContext context) {
    if (options.dryRun()) {
      Log.info("Dry run: not removing any rules", "cleanup", true);
      exit(0);
      return Future.succeededFuture();
    }
    return vertx.executeBlocking(() -> Proxiers.cleanupLeftovers(mode, true, context))
        .onSuccess(ok -> {
          if (!ok) {
            Log.error("command failed", "err", CLEANUP_FAILED);
          }
          exit(ok ? 0 : 1);
        });
  }

  /**
   * Removes the leftovers of the modes not in use (their own tables only, none this mode writes),
   * on a worker while the node is looked up: the proxier waits for it only before it is created.
   * A failure is logged where it happens and does not stop the agent.
   */
  private Future<?> removeLeftovers(AgentOptions options, ProxyMode mode, AgentContext context) {
    if (options.dryRun()) {
      return Future.succeededFuture();
    }
    return vertx.executeBlocking(
        () -> Proxiers.cleanupLeftovers(mode, false, context), false).otherwise(false);
  }

  private Future<?> runAgent(AgentOptions options, ProxyMode mode, AgentContext context, Future<?> leftoversRemoved) {
    // The node lookup (seconds when the API is slow), the platform set-up (OOM score, conntrack
    // sysctls) and the leftovers' removal need nothing of each other: they run at the same time.
    Future<PlatformSetup.Result> platform = platformSetup(options);
    return ClusterSource.open(vertx, options)
        .compose(source -> runAgent(options, mode, context, source, platform, leftoversRemoved));
  }

  /**
   * The cluster source is opened once: node discovery and the cluster watch both read from it. Once
   * the node is known the servers start and the objects are read; only the proxier's backends and
   * first sync wait for the host set-up and the leftovers' removal.
   */
  private Future<?> runAgent(AgentOptions options, ProxyMode mode, AgentContext context, ClusterSource source,
                             Future<PlatformSetup.Result> platform, Future<?> leftoversRemoved) {
    Future<?> hostReady = Future.all(platform, leftoversRemoved);
    return NodeInfoResolver.resolve(vertx, options, source).compose(node -> {
      if (options.initOnly()) {
        return hostReady.compose(both -> initOnly(options, node, context));
      }
      vertx.eventBus().publish(EventBusAddresses.NODE_ELIGIBLE, true); // known now; Node events refine it
      return deployChild(new MetricsServerVerticle(options, context))
          .compose(v2 -> deployChild(new ServiceHealthServerVerticle(options, node)))
          .compose(v2 -> deployProxierAndWatch(options, node, context, source, hostReady))
          .map(v2 -> {
            if (platform.result().sysfsReadOnly()) {
              // recorded now: the event recorder lives in the cluster watch, deployed last
              vertx.eventBus().publish(EventBusAddresses.EVENTS, EventRequest.readOnlySysFS());
            }
            Log.v(2).info("kube-proxy started", "mode", mode, "node", node.name());
            return null;
          });
    });
  }

  /**
   * The proxier, then the cluster watch: the watch starts once the proxier listens (no cluster
   * event is sent before), not once its backends are built, so reading and decoding the initial
   * lists overlaps the backends' probes and privileged set-up. Fails as soon as either fails.
   */
  private Future<?> deployProxierAndWatch(AgentOptions options, NodeInfo node, AgentContext context,
                                          ClusterSource source, Future<?> hostReady) {
    ProxierVerticle proxier = new ProxierVerticle(options, node, context).startingAfter(hostReady);
    Future<String> proxierStarted = deployChild(proxier, ProxierVerticle.DEPLOYMENT);
    Future<String> watchStarted = proxier.listening()
        .compose(v -> deployChild(new ClusterWatchVerticle(options, node, source)));
    return Future.all(proxierStarted, watchStarted);
  }

  /** The conntrack sysctls (the proxier waits for them) and the OOM score (nothing waits for it). */
  private Future<PlatformSetup.Result> platformSetup(AgentOptions options) {
    if (options.dryRun()) {
      return Future.succeededFuture(new PlatformSetup.Result(false));
    }
    vertx.executeBlocking(() -> {
      PlatformSetup.adjustOomScore(options);
      return null;
    }, false);
    return vertx.executeBlocking(() -> PlatformSetup.apply(options), false);
  }

  private Future<Void> initOnly(AgentOptions options, NodeInfo node, AgentContext context) {
    return vertx.<Void>executeBlocking(() -> {
      for (ProxyBackend backend : Proxiers.create(options, node, context)) {
        backend.privilegedInit();
      }
      return null;
    }).onSuccess(v -> exit(0));
  }

  private Future<String> deployChild(Deployable verticle) {
    return deployChild(verticle, new DeploymentOptions());
  }

  private Future<String> deployChild(Deployable verticle, DeploymentOptions deployment) {
    return vertx.deployVerticle(verticle, deployment)
        .recover(err -> Future.failedFuture(new IllegalStateException(
            verticle.getClass().getSimpleName() + " failed to start: " + message(err), err)));
  }

  private static String message(Throwable t) {
    return t.getMessage() != null ? t.getMessage() : t.toString();
  }
}
