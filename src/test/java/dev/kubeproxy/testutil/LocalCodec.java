package dev.kubeproxy.testutil;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageCodec;

/** Passes Java objects over the local event bus unchanged (the agent's messages are never serialized). */
public final class LocalCodec<T> implements MessageCodec<T, T> {
  private final String name;

  private LocalCodec(Class<T> type) {
    this.name = "local-" + type.getName();
  }

  /** Registers a pass-through default codec for each type (once per Vert.x instance). */
  public static void register(Vertx vertx, Class<?>... types) {
    for (Class<?> type : types) {
      registerOne(vertx, type);
    }
  }

  private static <T> void registerOne(Vertx vertx, Class<T> type) {
    try {
      vertx.eventBus().registerDefaultCodec(type, new LocalCodec<>(type));
    } catch (IllegalStateException alreadyRegistered) {
      // another part of the test registered it first
    }
  }

  @Override
  public void encodeToWire(Buffer buffer, T t) {
    throw new UnsupportedOperationException("local only");
  }

  @Override
  public T decodeFromWire(int pos, Buffer buffer) {
    throw new UnsupportedOperationException("local only");
  }

  @Override
  public T transform(T t) {
    return t;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public byte systemCodecID() {
    return -1;
  }
}
