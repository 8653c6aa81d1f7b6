package dev.kubeproxy.proxy.nftables;

import dev.kubeproxy.proxy.IpFamily;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An ordered list of nft commands applied atomically ("nft -f -" applies all or nothing).
 * Rendering gives exactly the text fed to nft, one command per line.
 */
public final class Transaction {
  public static final String TABLE = "kube-proxy";

  /** The nft commands used here. */
  public enum Verb {
    ADD("add"), CREATE("create"), FLUSH("flush"), DELETE("delete");

    private final String word;

    Verb(String word) {
      this.word = word;
    }

    /** Whether the command carries the object's definition (type, hook, comment, value). */
    public boolean createsObject() {
      return this == ADD || this == CREATE;
    }

    public String word() {
      return word;
    }
  }

  /** One command. */
  public record Operation(Verb verb, NftObject object) {}

  private final List<Operation> operations = new ArrayList<>();

  public Transaction add(NftObject object) {
    return op(Verb.ADD, object);
  }

  public Transaction create(NftObject object) {
    return op(Verb.CREATE, object);
  }

  public Transaction flush(NftObject object) {
    return op(Verb.FLUSH, object);
  }

  public Transaction delete(NftObject object) {
    return op(Verb.DELETE, object);
  }

  private Transaction op(Verb verb, NftObject object) {
    if (object instanceof Rule && verb != Verb.ADD) {
      throw new IllegalArgumentException("rules can only be added (chains are flushed instead)");
    }
    if (object instanceof Element && verb == Verb.FLUSH) {
      throw new IllegalArgumentException("elements cannot be flushed; flush their set or map");
    }
    operations.add(new Operation(verb, object));
    return this;
  }

  public List<Operation> operations() {
    return Collections.unmodifiableList(operations);
  }

  public int size() {
    return operations.size();
  }

  public boolean isEmpty() {
    return operations.isEmpty();
  }

  /** The nft family keyword of the kube-proxy table. */
  public static String familyKeyword(IpFamily family) {
    return family == IpFamily.IPv6 ? "ip6" : "ip";
  }

  /** The "nft -f -" input. */
  public String render(IpFamily family, boolean objectComments) {
    String familyAndTable = familyKeyword(family) + " " + TABLE;
    StringBuilder sb = new StringBuilder(operations.size() * 96);
    for (Operation op : operations) {
      sb.append(op.verb().word()).append(' ')
          .append(op.object().render(op.verb(), familyAndTable, objectComments)).append('\n');
    }
    return sb.toString();
  }

  public String render(IpFamily family) {
    return render(family, true);
  }
}
