package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.FormArena;
import dev.kubeproxy.backend.nftables.objects.Nftables;
import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Table;
import dev.kubeproxy.backend.nftables.objects.TableVisitor;
import dev.kubeproxy.backend.nftables.objects.Transaction;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.backend.nftables.netlink.NetlinkNftables;
import dev.kubeproxy.backend.nftables.netlink.NetlinkPath;
import java.io.IOException;

/** The netlink path, counting the batches it applied, the table read-backs and the time spent on both (tests and the benchmark). */
public final class CountingNetlink implements NetlinkPath, AutoCloseable {
  final NetlinkNftables delegate;
  private long batches;
  private long nanos;
  private long encodeNanos;
  private long reads;
  private long readNanos;
  private long readCpuNanos;
  private long readUserNanos;
  private long readAllocatedBytes;

  private CountingNetlink(NetlinkNftables delegate) {
    this.delegate = delegate;
  }

  /** A counting socket in the namespace, or null when none can be opened (as NetlinkNftables.open). */
  public static CountingNetlink open(IpFamily family, String netns) {
    NetlinkNftables n = NetlinkNftables.open(family, netns);
    return n == null ? null : new CountingNetlink(n);
  }

  @Override
  public boolean tryRun(Transaction tx) throws NftablesException {
    long start = System.nanoTime();
    // the kernel applies the batch within this thread's send, as system time: user time is the encoding
    long user = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadUserTime();
    boolean sent = delegate.tryRun(tx);
    if (sent) {
      batches++;
      nanos += System.nanoTime() - start;
      encodeNanos += java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadUserTime() - user;
    }
    return sent;
  }

  @Override
  public long generation() throws IOException {
    return delegate.generation();
  }

  @Override
  public <V extends TableVisitor> java.util.Optional<V> read(java.util.function.Supplier<V> visitors)
      throws NftablesException {
    long start = System.nanoTime();
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    long cpu = threads.getCurrentThreadCpuTime();
    long user = threads.getCurrentThreadUserTime();
    long allocated = threadAllocatedBytes();
    java.util.Optional<V> t = delegate.read(visitors);
    reads++;
    readNanos += System.nanoTime() - start;
    readCpuNanos += threads.getCurrentThreadCpuTime() - cpu;
    readUserNanos += threads.getCurrentThreadUserTime() - user;
    readAllocatedBytes += threadAllocatedBytes() - allocated;
    return t;
  }

  @Override
  public Nftables.TableContents contents() throws NftablesException {
    return delegate.contents();
  }

  @Override
  public String ruleForm(Rule rule) {
    return delegate.ruleForm(rule);
  }

  @Override
  public void keyForm(Element element, FormArena out) {
    delegate.keyForm(element, out);
  }

  @Override
  public void elementForm(Element element, FormArena out) {
    delegate.elementForm(element, out);
  }

  @Override
  public Element decode(String container, boolean map, char[] forms, int start, int end) {
    return delegate.decode(container, map, forms, start, end);
  }

  /** Time spent encoding the batches sent (this thread's user CPU; the rest of {@link #nanos} is mostly the kernel's). */
  public long encodeNanos() {
    return encodeNanos;
  }

  /** Table read-backs so far. */
  public long reads() {
    return reads;
  }

  /** Time spent reading the table back. */
  public long readNanos() {
    return readNanos;
  }

  /** CPU time (user + system, the kernel's dump work included) of the reading thread while reading back. */
  public long readCpuNanos() {
    return readCpuNanos;
  }

  /** Of {@link #readCpuNanos}, the part in the kernel (system time: the dumps' own work). */
  public long readKernelNanos() {
    return readCpuNanos - readUserNanos;
  }

  /** Bytes the reading threads allocated since the last reset. */
  public long readAllocatedBytes() {
    return readAllocatedBytes;
  }

  public void resetReads() {
    reads = 0;
    readNanos = 0;
    readCpuNanos = 0;
    readUserNanos = 0;
    readAllocatedBytes = 0;
  }

  /** Batches applied over netlink so far. */
  public long batches() {
    return batches;
  }

  /** Time spent encoding and sending them and waiting for the kernel's answers. */
  public long nanos() {
    return nanos;
  }

  boolean disabled() {
    return delegate.disabled();
  }

  @Override
  public void close() {
    delegate.close();
  }

  /** Bytes this thread has allocated so far, or -1 where the JVM does not count them. */
  static long threadAllocatedBytes() {
    return java.lang.management.ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
        ? t.getCurrentThreadAllocatedBytes() : -1;
  }
}
