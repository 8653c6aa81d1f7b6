package dev.kubeproxy.backend.nftables.objects;

import java.util.List;

/** The value of a map element: a {@link Verdict} or an endpoint ({@link Target}). */
public sealed interface ElementValue permits Verdict, ElementValue.Target {

  /** The value as nft writes it after the colon. */
  String text();

  /** Chains the value refers to. */
  default List<String> chains() {
    return List.of();
  }

  /** An endpoint a numgen map picks: "10.244.1.5 . 8080". */
  record Target(String address, int port) implements ElementValue {
    @Override
    public String text() {
      return address + " . " + port;
    }
  }
}
