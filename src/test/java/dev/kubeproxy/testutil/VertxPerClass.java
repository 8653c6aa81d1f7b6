package dev.kubeproxy.testutil;

import io.vertx.core.Vertx;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One Vert.x instance for a test class, closed after its last test:
 * {@code @RegisterExtension static final VertxPerClass VERTX = new VertxPerClass();}.
 */
public final class VertxPerClass implements BeforeAllCallback, AfterAllCallback {
  private Vertx vertx;

  @Override
  public void beforeAll(ExtensionContext context) {
    vertx = Vertx.vertx();
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  public Vertx get() {
    return vertx;
  }
}
