package dev.kubeproxy.runtime;

import dev.kubeproxy.Main;

import io.vertx.core.Vertx;

/** Ends the agent: close Vert.x, then exit the process with a status. {@link Main#exitProcess} is the real one. */
@FunctionalInterface
public interface ProcessExit {
  void exit(Vertx vertx, int status);
}
