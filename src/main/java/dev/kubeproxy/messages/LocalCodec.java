package dev.kubeproxy.messages;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageCodec;

/**
 * Passes an object over the local event bus as is: the receiver gets the same (immutable) instance.
 * The agent runs in one JVM, so nothing is ever encoded to the wire.
 */
public final class LocalCodec<T> implements MessageCodec<T, T> {
  private final String name;

  public LocalCodec(Class<?> type) {
    this.name = "local:" + type.getName();
  }

  @Override
  public void encodeToWire(Buffer buffer, T t) {
    throw new UnsupportedOperationException(name + " is a local-only codec");
  }

  @Override
  public T decodeFromWire(int pos, Buffer buffer) {
    throw new UnsupportedOperationException(name + " is a local-only codec");
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
