package dev.kubeproxy.host.netlink;

import java.io.IOException;

/**
 * Generic netlink's controller (GENL_ID_CTRL): resolves a family's name ("IPVS", …) to the message
 * type its requests carry, which the kernel assigns when the family registers.
 */
public final class GenericNetlink {
  static final int GENL_ID_CTRL = 0x10;
  static final int CTRL_CMD_GETFAMILY = 3;
  static final int CTRL_ATTR_FAMILY_ID = 1;
  static final int CTRL_ATTR_FAMILY_NAME = 2;
  /** errno ENOENT: no such family (its module is not loaded). */
  public static final int ENOENT = 2;

  private GenericNetlink() {}

  /**
   * The family id of name, asked on a NETLINK_GENERIC exchange.
   *
   * @throws NetlinkExchange.NetlinkError with errno ENOENT when the kernel has no such family
   */
  public static int familyId(NetlinkExchange exchange, String name) throws IOException {
    MessageWriter w = new MessageWriter();
    int seq = exchange.nextSequence();
    int m = w.beginGenericMessage(GENL_ID_CTRL, NetlinkExchange.NLM_F_REQUEST | NetlinkExchange.NLM_F_ACK, seq,
        CTRL_CMD_GETFAMILY, 1);
    w.string(CTRL_ATTR_FAMILY_NAME, name);
    w.endMessage(m);
    int[] errnos = new int[1];
    int[] id = {-1};
    exchange.requests(w.toBytes(), seq, 1, errnos, answer -> {
      Attributes a = Attributes.ofGenericMessage(exchange.buffer(), answer, CTRL_ATTR_FAMILY_NAME);
      id[0] = a.hostU16(CTRL_ATTR_FAMILY_ID, -1);
    });
    if (errnos[0] != 0) {
      throw new NetlinkExchange.NetlinkError(errnos[0], "generic netlink family " + name + ": "
          + exchange.errorText(errnos[0]));
    }
    if (id[0] < 0) {
      throw new IOException("generic netlink family " + name + ": the answer has no family id");
    }
    return id[0];
  }
}
