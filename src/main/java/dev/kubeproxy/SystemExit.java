package dev.kubeproxy;

import dev.kubeproxy.runtime.ProcessExit;
import io.vertx.core.Vertx;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The real {@link ProcessExit}: closes Vert.x and exits with the status, from a thread of its own
 * (never an event loop). Only the first call counts; one instance per process.
 */
final class SystemExit implements ProcessExit {
  /** How long closing Vert.x may take before the process exits anyway. */
  static final long CLOSE_TIMEOUT_MS = 500;

  private final AtomicBoolean exiting = new AtomicBoolean();

  @Override
  public void exit(Vertx vertx, int status) {
    if (!exiting.compareAndSet(false, true)) {
      return;
    }
    Thread exiter = new Thread(() -> {
      try {
        vertx.close().toCompletionStage().toCompletableFuture().get(CLOSE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        // exit anyway: a verticle that cannot stop must not keep the process alive
      }
      System.out.flush();
      System.err.flush();
      System.exit(status);
    }, "kube-proxy-exit");
    exiter.start();
  }
}
