package dev.kubeproxy;

import dev.kubeproxy.cli.Startup;
import dev.kubeproxy.explain.ExplainCommand;
import dev.kubeproxy.logging.JulBridge;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.metrics.Metrics;
import io.vertx.core.Vertx;
import java.util.List;
import sun.misc.Signal;

/**
 * {@code java -jar kube-proxy.jar [flags]} (or {@code explain ...}, see {@link ExplainCommand}): parses the flags (--version, --help, a bad flag exit here),
 * deploys the {@link AgentVerticle}; with {@link SystemExit}, the only place that calls System.exit.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("explain")) {
      // kube-proxy explain ...: asks the running agent, prints its answer, and exits
      exitBeforeVertx(ExplainCommand.run(List.of(args).subList(1, args.length), System.out, System.err));
      return;
    }
    JulBridge.install();
    Startup.Parsed parsed = Startup.parse(List.of(args), System.out, System.err);
    if (parsed instanceof Startup.Exit exit) {
      exitBeforeVertx(exit.status());
      return;
    }
    // The --config file is read by the agent's ConfigVerticle (Complete and Validate need it, so they
    // run in the agent too); only what needs no file is answered here, before Vert.x exists.
    Vertx vertx = Metrics.vertxBuilder().build();
    SystemExit exit = new SystemExit();
    // The kubelet stops the agent with SIGTERM: an orderly stop that exits 0 (the JVM's default is
    // status 143); the rules stay in place, as upstream leaves them.
    for (String signal : List.of("TERM", "INT")) {
      Signal.handle(new Signal(signal), s -> {
        Log.info("Received signal, shutting down", "signal", "SIG" + signal);
        exit.exit(vertx, 0);
      });
    }
    vertx.deployVerticle(new AgentVerticle((Startup.Flags) parsed, exit)).onFailure(err -> {
      // AgentVerticle has logged why; a failed deployment never exits 0
      Log.v(2).info("Deployment failed", "err", err);
      exit.exit(vertx, 1);
    });
  }

  /** Exits before any Vert.x instance exists (explain, --version, --help, a bad flag): nothing to close. */
  private static void exitBeforeVertx(int status) {
    System.out.flush();
    System.exit(status);
  }
}
