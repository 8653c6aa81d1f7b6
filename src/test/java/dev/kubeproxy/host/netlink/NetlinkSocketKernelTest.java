package dev.kubeproxy.host.netlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.testutil.tier.Kernel;
import dev.kubeproxy.testutil.tier.KernelHost;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A NETLINK_NETFILTER socket in a scratch namespace subscribed to nf_tables' announcements. */
@Kernel
class NetlinkSocketKernelTest {
  private static final int NFNLGRP_NFTABLES = 7;
  private static final int NFT_MSG_NEWTABLE = (10 << 8) | 0;
  private static final int NFTA_TABLE_NAME = 1;

  private String ns;

  @BeforeEach
  void namespace() throws Exception {
    assumeTrue(KernelHost.onPath("nft"), "the nft command is missing");
    ns = "kp-nl-" + UUID.randomUUID().toString().substring(0, 8);
    sh("ip", "netns", "add", ns);
  }

  @AfterEach
  void removeNamespace() throws Exception {
    if (ns != null) {
      sh("ip", "netns", "delete", ns);
    }
  }

  @Test
  void aJoinedSocketReceivesTheNewTableAndAnotherDoesNot() throws Exception {
    LibC libc = LibC.load();
    try (NetlinkSocket joined = NetlinkSocket.open(libc, LibC.NETLINK_NETFILTER, ns);
         NetlinkSocket other = NetlinkSocket.open(libc, LibC.NETLINK_NETFILTER, ns)) {
      joined.joinGroup(NFNLGRP_NFTABLES);
      joined.receiveTimeout(Duration.ofSeconds(5));
      sh("ip", "netns", "exec", ns, "nft", "add", "table", "ip", "x");

      byte[] buffer = new byte[64 * 1024];
      List<String> tables = new ArrayList<>();
      while (tables.isEmpty()) {
        int length = joined.receive(buffer, true); // times out (IOException) when nothing was announced
        for (NetlinkMessage m : NetlinkMessage.parse(buffer, length)) {
          if (m.type() == NFT_MSG_NEWTABLE) {
            tables.add(Attributes.ofNetfilterMessage(buffer, m, NFTA_TABLE_NAME).string(NFTA_TABLE_NAME));
          }
        }
      }
      assertEquals(List.of("x"), tables);
      // the announcement was sent during nft's commit, so a socket that joined nothing has nothing queued by now
      assertEquals(-1, other.receive(buffer, false));
    }
  }

  @Test
  void aGroupTheKernelDoesNotHaveIsRefusedNamingIt() throws Exception {
    try (NetlinkSocket socket = NetlinkSocket.open(LibC.load(), LibC.NETLINK_NETFILTER, ns)) {
      IOException e = assertThrows(IOException.class, () -> socket.joinGroup(4096));
      assertTrue(e.getMessage().contains("group 4096"), e.getMessage());
    }
  }

  private static void sh(String... argv) throws Exception {
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", argv) + ": " + out);
    }
  }
}
