package dev.kubeproxy.backend.nftables.netlink;

/** A command this encoder does not write; the transaction then goes through nft instead. */
final class Unsupported extends Exception {
  Unsupported(String what) {
    super(what, null, false, false);
  }
}
