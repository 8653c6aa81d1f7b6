package dev.kubeproxy.testutil;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Ports for a test's own listeners, chosen by the kernel. */
public final class FreePorts {
  private FreePorts() {}

  /** A TCP port free on the loopback address a moment ago (a listener that asks for port 0 cannot be told it in advance). */
  public static int loopback() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on the loopback address", e);
    }
  }
}
