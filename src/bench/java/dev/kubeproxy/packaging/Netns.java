package dev.kubeproxy.packaging;

import dev.kubeproxy.packaging.Commands.Output;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** A scratch network namespace with loopback up, deleted on close. */
final class Netns implements AutoCloseable {
  final String name;

  private Netns(String name) {
    this.name = name;
  }

  static Netns create() throws IOException, InterruptedException {
    Netns ns = new Netns("kp-fp-" + UUID.randomUUID().toString().substring(0, 8));
    check(Commands.run(List.of("ip", "netns", "add", ns.name), null), "ip netns add");
    check(Commands.run(List.of("ip", "-n", ns.name, "link", "set", "lo", "up"), null), "ip link set lo up");
    return ns;
  }

  Output exec(String... argv) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", name));
    cmd.addAll(List.of(argv));
    return Commands.run(cmd, null);
  }

  double timedWithInput(String input, String... argv) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", name));
    cmd.addAll(List.of(argv));
    long t = System.nanoTime();
    Output o = Commands.run(cmd, input);
    double seconds = (System.nanoTime() - t) / 1e9;
    check(o, String.join(" ", argv));
    return seconds;
  }

  private static void check(Output o, String what) {
    if (o.exit() != 0) {
      throw new IllegalStateException(what + " failed: " + o.stdout());
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    Commands.run(List.of("ip", "netns", "del", name), null);
  }
}
