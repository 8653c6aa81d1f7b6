package dev.kubeproxy.runtime;

import io.vertx.core.Vertx;

/** Ends the agent: close Vert.x, then exit the process with a status. The entry package holds the real one. */
@FunctionalInterface
public interface ProcessExit {
  void exit(Vertx vertx, int status);
}
