package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Nftables;
import dev.kubeproxy.backend.nftables.objects.TableVisitor;
import dev.kubeproxy.backend.nftables.objects.Transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.logging.LogFormat;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.backend.nftables.netlink.NetlinkPath;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The committer's choice of way (netlink or nft) is logged when it changes, not on every call. */
@Unit
class CommitterTest {
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

  @AfterEach
  void reset() {
    Log.configure(LogFormat.TEXT, 0, List.of(), false);
  }

  /** A netlink path that is never used for a transaction here: only its presence matters. */
  private static final NetlinkPath NETLINK = new UnusedNetlink();

  private static final class UnusedNetlink extends FormlessReader implements NetlinkPath {
    @Override
    public boolean tryRun(Transaction tx) {
      return false;
    }

    @Override
    public Nftables.TableContents contents() {
      throw new UnsupportedOperationException();
    }

    @Override
    public long generation() {
      return 1;
    }

    @Override
    public <V extends TableVisitor> java.util.Optional<V> read(java.util.function.Supplier<V> visitors) {
      throw new UnsupportedOperationException();
    }
  }

  private List<String> lines() {
    String s = buffer.toString(StandardCharsets.UTF_8);
    return s.isEmpty() ? List.of() : Arrays.stream(s.split("\n")).map(l -> l.substring(l.indexOf('"'))).toList();
  }

  @Test
  void theWayIsLoggedOncePerChange() {
    Log.configure(LogFormat.TEXT, 0, List.of(), false);
    PrintStream ps = new PrintStream(buffer, true, StandardCharsets.UTF_8);
    Log.setOutputs(ps, ps);
    Nftables nft = new Nftables() {
      @Override
      public void run(Transaction tx) {
      }

      @Override
      public TableContents list() {
        throw new UnsupportedOperationException();
      }
    };
    Committer committer = new Committer(IpFamily.IPv4, nft, new CommitGenerations());
    committer.useNetlink(null);
    committer.useNetlink(NETLINK);
    committer.useNetlink(NETLINK);
    committer.useNetlink(NETLINK);
    committer.useNetlink(null);
    committer.useNetlink(null);
    committer.useNetlink(NETLINK);
    assertEquals(List.of(
        "\"nftables: transactions go to nf_tables over netlink (nft for what the encoder does not write)\" family=\"IPv4\"",
        "\"nftables: transactions go through nft\" family=\"IPv4\"",
        "\"nftables: transactions go to nf_tables over netlink (nft for what the encoder does not write)\" family=\"IPv4\""),
        lines());
  }
}
