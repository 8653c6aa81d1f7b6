package dev.kubeproxy.backend.nftables.objects;

import java.util.List;

/**
 * One match of a {@link Rule}, in the order nft evaluates them. Each knows its nft text; the netlink
 * encoder writes the same matches as kernel expressions. Addresses are written in the family of the
 * table ("ip" or "ip6", given when rendering).
 */
public sealed interface Match {

  /** Appends the match as nft writes it; ip is "ip" or "ip6". */
  void render(StringBuilder sb, String ip);

  /** Sets and maps the match refers to. */
  default List<String> sets() {
    return List.of();
  }

  /** Which address of the packet a match looks at. */
  enum Field {
    SOURCE("saddr"), DESTINATION("daddr");

    final String word;

    Field(String word) {
      this.word = word;
    }

    public String word() {
      return word;
    }
  }

  /** "ip saddr [!=] 10.0.0.0/8": an address or a prefix (host bits zero). */
  record Address(Field field, boolean negated, String prefix) implements Match {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append(ip).append(' ').append(field.word).append(negated ? " != " : " ").append(prefix);
    }
  }

  /** "ip saddr [!=] { a , b }": one of several addresses or prefixes (an anonymous set). */
  record AddressIn(Field field, boolean negated, List<String> prefixes) implements Match {
    public AddressIn {
      prefixes = List.copyOf(prefixes);
      if (prefixes.isEmpty()) {
        throw new IllegalArgumentException("an anonymous set needs an element");
      }
    }

    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append(ip).append(' ').append(field.word).append(negated ? " != { " : " { ")
          .append(String.join(" , ", prefixes)).append(" }");
    }
  }

  /** "ip daddr @cluster-ips": the address is in a named set. */
  record AddressInSet(Field field, String set) implements Match {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append(ip).append(' ').append(field.word).append(" @").append(set);
    }

    @Override
    public List<String> sets() {
      return List.of(set);
    }
  }

  /**
   * "ip daddr . meta l4proto . th dport @S": the destination (address, protocol, port) is a key of
   * the set or map.
   */
  record DestinationInSet(String set) implements Match {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append(ip).append(" daddr . meta l4proto . th dport @").append(set);
    }

    @Override
    public List<String> sets() {
      return List.of(set);
    }
  }

  /** "tcp dport 80": the protocol and the destination port. */
  record DestinationPort(String protocol, int port) implements Match {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append(protocol).append(" dport ").append(port);
    }
  }

  /** "meta l4proto tcp". */
  record Protocol(String protocol) implements Match {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append("meta l4proto ").append(protocol);
    }
  }

  /** "iifname [!=] "eth0"", or a prefix of interface names when the name ends in "*". */
  record InterfaceName(boolean negated, String name) implements Match {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append("iifname").append(negated ? " != " : " ").append('"').append(name).append('"');
    }
  }

  /** "fib saddr type local" / "fib daddr type local": the address is one of this host's. */
  record LocalAddress(Field field) implements Match {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append("fib ").append(field.word).append(" type local");
    }
  }

  /** "ct state new". */
  record NewConnection() implements Match {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append("ct state new");
    }
  }

  /** "ct status dnat". */
  record DestinationNatted() implements Match {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append("ct status dnat");
    }
  }

  /** "mark and 0x00004000 == 0": none of the mark's bits is set. */
  record MarkUnset(String mark) implements Match {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append("mark and ").append(mark).append(" == 0");
    }
  }

  /** "ip saddr . ip daddr . meta l4proto . th dport @set": the connection's tuple is in the set. */
  record TupleInSet(String set) implements Match {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append(ip).append(" saddr . ").append(ip).append(" daddr . meta l4proto . th dport @").append(set);
    }

    @Override
    public List<String> sets() {
      return List.of(set);
    }
  }
}
