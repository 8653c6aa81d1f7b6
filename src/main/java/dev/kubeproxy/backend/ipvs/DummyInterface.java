package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.net.IpAddresses;
import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The dummy interface that holds every service address IPVS answers for, so that the kernel
 * delivers packets to them locally, where IPVS takes them (pkg/proxy/ipvs/netlink_linux.go), through
 * the ip tool. Like upstream, the interface is left down: the addresses' local routes are all that
 * is needed.
 */
public final class DummyInterface {
  /** upstream defaultDummyDevice */
  public static final String NAME = "kube-ipvs0";

  private final CommandRunner runner;
  private final String name;

  public DummyInterface(CommandRunner runner) {
    this(runner, NAME);
  }

  DummyInterface(CommandRunner runner, String name) {
    this.runner = runner;
    this.name = name;
  }

  public String name() {
    return name;
  }

  /** upstream EnsureDummyDevice: creates the interface unless it exists. */
  public void ensure() throws IOException {
    if (exists()) {
      return;
    }
    run(List.of("ip", "link", "add", name, "type", "dummy"), "create the dummy interface " + name);
  }

  public boolean exists() throws IOException {
    return runner.run(List.of("ip", "-o", "link", "show", "dev", name)).ok();
  }

  /** upstream DeleteDummyDevice: harmless when it does not exist. */
  public void delete() throws IOException {
    if (exists()) {
      run(List.of("ip", "link", "del", name), "delete the dummy interface " + name);
    }
  }

  /** The addresses bound to the interface (empty when it does not exist). */
  public Set<String> boundAddresses() throws IOException {
    CommandRunner.Result r = runner.run(List.of("ip", "-o", "addr", "show", "dev", name));
    if (!r.ok()) {
      return Set.of();
    }
    return addresses(r.stdout(), name, true);
  }

  /** Every local address of the node except those on this interface (upstream GetAllLocalAddressesExcept). */
  public Set<String> otherLocalAddresses() throws IOException {
    CommandRunner.Result r = run(List.of("ip", "-o", "addr", "show"), "list the node's addresses");
    return addresses(r.stdout(), name, false);
  }

  /** upstream EnsureAddressBind: the address as a host route (/32, /128) on the interface. */
  public void bind(String address) throws IOException {
    String ip = IpAddresses.normalize(address);
    String prefix = ip.indexOf(':') >= 0 ? "/128" : "/32";
    CommandRunner.Result r = runner.run(List.of("ip", "addr", "add", ip + prefix, "dev", name));
    if (!r.ok() && !r.stderr().contains("File exists")) {
      throw new IOException("cannot bind " + ip + " to " + name + ": " + r.stderr().trim());
    }
  }

  /**
   * Binds (add) or unbinds (!add) every address in one "ip -batch" (a process per address costs
   * seconds on a slow machine); an address already there, or already gone, is no error.
   */
  public void change(java.util.Collection<String> addresses, boolean add) throws IOException {
    if (addresses.isEmpty()) {
      return;
    }
    StringBuilder batch = new StringBuilder();
    for (String address : addresses) {
      String ip = IpAddresses.normalize(address);
      batch.append("addr ").append(add ? "replace " : "del ").append(ip).append(ip.indexOf(':') >= 0 ? "/128" : "/32")
          .append(" dev ").append(name).append('\n');
    }
    CommandRunner.Result r = runner.run(List.of("ip", "-force", "-batch", "-"), batch.toString());
    if (!r.ok() && !(add ? "" : r.stderr()).contains("Cannot assign requested address")) {
      throw new IOException("cannot " + (add ? "bind" : "unbind") + " addresses on " + name + ": " + r.stderr().trim());
    }
  }

  /** upstream UnbindAddress. */
  public void unbind(String address) throws IOException {
    String ip = IpAddresses.normalize(address);
    String prefix = ip.indexOf(':') >= 0 ? "/128" : "/32";
    run(List.of("ip", "addr", "del", ip + prefix, "dev", name), "unbind " + ip + " from " + name);
  }

  /**
   * The addresses in "ip -o addr show" output: on the named device (onDevice) or on every other one.
   * A line reads "5: kube-ipvs0    inet 10.96.0.1/32 scope global kube-ipvs0 ...".
   */
  static Set<String> addresses(String ipOutput, String device, boolean onDevice) {
    Set<String> out = new LinkedHashSet<>();
    for (String line : ipOutput.split("\n")) {
      String[] f = line.trim().split("\\s+");
      if (f.length < 4 || !(f[2].equals("inet") || f[2].equals("inet6"))) {
        continue;
      }
      String dev = f[1].contains("@") ? f[1].substring(0, f[1].indexOf('@')) : f[1];
      if (dev.equals(device) != onDevice) {
        continue;
      }
      String ip = IpAddresses.normalize(f[3].contains("/") ? f[3].substring(0, f[3].indexOf('/')) : f[3]);
      if (ip != null) {
        out.add(ip);
      }
    }
    return out;
  }

  private CommandRunner.Result run(List<String> argv, String what) throws IOException {
    CommandRunner.Result r = runner.run(argv);
    if (!r.ok()) {
      throw new IOException("cannot " + what + ": " + String.join(" ", argv) + ": " + r.stderr().trim());
    }
    return r;
  }
}
