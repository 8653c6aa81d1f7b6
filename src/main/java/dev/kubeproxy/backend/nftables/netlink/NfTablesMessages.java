package dev.kubeproxy.backend.nftables.netlink;

/**
 * nf_tables' netlink message types (include/uapi/linux/netfilter/nf_tables.h, enum
 * nf_tables_msg_types), sent as {@code NFNL_SUBSYS_NFTABLES << 8 | type}: one list for the
 * encoder, the dumps, the generation reading and whoever listens to the announcements.
 */
public final class NfTablesMessages {
  /** nfnetlink's subsystem of nf_tables (include/uapi/linux/netfilter/nfnetlink.h). */
  public static final int NFNL_SUBSYS_NFTABLES = 10;
  /** nfnetlink's multicast group of nf_tables' announcements. */
  public static final int NFNLGRP_NFTABLES = 7;
  public static final int NEWTABLE = 0;
  public static final int DELTABLE = 2;
  public static final int NEWCHAIN = 3;
  public static final int GETCHAIN = 4;
  public static final int DELCHAIN = 5;
  public static final int NEWRULE = 6;
  public static final int GETRULE = 7;
  public static final int DELRULE = 8;
  public static final int NEWSET = 9;
  public static final int GETSET = 10;
  public static final int DELSET = 11;
  public static final int NEWSETELEM = 12;
  public static final int GETSETELEM = 13;
  public static final int DELSETELEM = 14;
  public static final int GETGEN = 16;

  private NfTablesMessages() {}
}
