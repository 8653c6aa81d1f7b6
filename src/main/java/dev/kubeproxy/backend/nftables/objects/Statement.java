package dev.kubeproxy.backend.nftables.objects;

import java.util.List;

/** The final statement of a {@link Rule}; like {@link Match}, it knows its nft text. */
public sealed interface Statement permits Verdict, Statement.Reject, Statement.Dnat, Statement.DnatFromMap,
    Statement.DnatByDestination, Statement.RandomGoto, Statement.DestinationVmap, Statement.SetMark,
    Statement.Masquerade, Statement.RememberSource, Statement.CountedReject {

  /** Appends the statement as nft writes it; ip is "ip" or "ip6". */
  void render(StringBuilder sb, String ip);

  /** Chains the statement jumps or goes to. */
  default List<String> chains() {
    return List.of();
  }

  /** Sets and maps the statement refers to. */
  default List<String> sets() {
    return List.of();
  }

  /** "reject" (ICMP port unreachable). */
  record Reject() implements Statement {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append("reject");
    }
  }

  /**
   * "counter name \"C\" reject": adds the packet to the named counter ({@link NftCounter}) and
   * rejects it (ICMP port unreachable).
   */
  record CountedReject(String counter) implements Statement {
    public CountedReject {
      new NftCounter(counter); // the same naming rules
    }

    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append("counter name ").append(NftObject.quote(counter)).append(" reject");
    }

    /** The counter it adds to, which must exist before the rule. */
    public List<String> counters() {
      return List.of(counter);
    }
  }

  /** "dnat to 10.0.0.1:80" or "dnat to [fd00::1]:80" (needs a protocol match before it). */
  record Dnat(String address, int port) implements Statement {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append("dnat to ");
      if (ip.equals("ip6")) {
        sb.append('[').append(address).append("]:").append(port);
      } else {
        sb.append(address).append(':').append(port);
      }
    }
  }

  /**
   * "dnat ip addr . port to numgen random mod M offset K map @S": a key from K to K+M-1 of an
   * interval map of address . port values, whose endpoints hold equal ranges of those keys
   * (needs a protocol match before it).
   */
  record DnatFromMap(int modulus, int offset, String map) implements Statement {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append("dnat ").append(ip).append(" addr . port to numgen random mod ").append(modulus)
          .append(" offset ").append(offset).append(" map @").append(map);
    }

    @Override
    public List<String> sets() {
      return List.of(map);
    }
  }

  /**
   * "dnat ip addr . port to ip daddr . meta l4proto . th dport map @S": the address . port the map
   * holds for the packet's destination (needs a protocol match before it; no match when the map
   * has no such key).
   */
  record DnatByDestination(String map) implements Statement {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append("dnat ").append(ip).append(" addr . port to ").append(ip)
          .append(" daddr . meta l4proto . th dport map @").append(map);
    }

    @Override
    public List<String> sets() {
      return List.of(map);
    }
  }

  /** "numgen random mod N vmap { 0 : goto a , 1 : goto b }": goto one of the chains at random. */
  record RandomGoto(List<String> targets) implements Statement {
    public RandomGoto {
      targets = List.copyOf(targets);
    }

    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append("numgen random mod ").append(targets.size()).append(" vmap { ");
      for (int i = 0; i < targets.size(); i++) {
        sb.append(i == 0 ? "" : " , ").append(i).append(" : goto ").append(targets.get(i));
      }
      sb.append(" }");
    }

    @Override
    public List<String> chains() {
      return targets;
    }
  }

  /**
   * "ip daddr . meta l4proto . th dport vmap @M" (withAddress) or "meta l4proto . th dport vmap @M":
   * the verdict of a map keyed by the packet's destination.
   */
  record DestinationVmap(boolean withAddress, String map) implements Statement {
    @Override
    public void render(StringBuilder sb, String ip) {
      if (withAddress) {
        sb.append(ip).append(" daddr . ");
      }
      sb.append("meta l4proto . th dport vmap @").append(map);
    }

    @Override
    public List<String> sets() {
      return List.of(map);
    }
  }

  /** "mark set mark or M" (set the bits) or "mark set mark xor M" (toggle them). */
  record SetMark(boolean toggle, String mark) implements Statement {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append("mark set mark ").append(toggle ? "xor " : "or ").append(mark);
    }
  }

  /** "masquerade fully-random". */
  record Masquerade() implements Statement {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append("masquerade fully-random");
    }
  }

  /** "update @S { ip saddr }": remembers the source address in a dynamic set (session affinity). */
  record RememberSource(String set) implements Statement {
    @Override
    public void render(StringBuilder sb, String ip) {
      sb.append("update @").append(set).append(" { ").append(ip).append(" saddr }");
    }

    @Override
    public List<String> sets() {
      return List.of(set);
    }
  }
}
