package dev.kubeproxy.backend.nftables.objects;

import dev.kubeproxy.net.IpFamily;
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

  /** Appends one command. */
  public Transaction append(Operation op) {
    return op(op.verb(), op.object());
  }

  /** Appends another transaction's commands, in their order. */
  public Transaction append(Transaction other) {
    operations.addAll(other.operations);
    return this;
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

  /**
   * The operations grouped into input lines: consecutive additions (or deletions) of elements of
   * the same set or map share one line, which nft processes much faster than one line each.
   */
  public List<List<Operation>> lines() {
    List<List<Operation>> lines = new ArrayList<>();
    List<Operation> current = null;
    for (Operation op : operations) {
      if (current != null && sameElementBatch(current.get(0), op)) {
        current.add(op);
        continue;
      }
      current = new ArrayList<>(1);
      current.add(op);
      lines.add(current);
    }
    return lines;
  }

  private static boolean sameElementBatch(Operation first, Operation op) {
    return first.object() instanceof Element a && op.object() instanceof Element b
        && first.verb() == op.verb() && a.container().equals(b.container());
  }

  /** The "nft -f -" input. */
  public String render(IpFamily family, boolean objectComments) {
    StringBuilder sb = new StringBuilder(operations.size() * 96);
    int i = 0;
    while (i < operations.size()) {
      int end = i + 1;
      while (end < operations.size() && sameElementBatch(operations.get(i), operations.get(end))) {
        end++;
      }
      renderLine(sb, operations.subList(i, end), family, objectComments);
      i = end;
    }
    return sb.toString();
  }

  /** One input line: a single command, or several elements of one container in one command. */
  public static void renderLine(StringBuilder sb, List<Operation> line, IpFamily family, boolean objectComments) {
    Operation first = line.get(0);
    sb.append(first.verb().word()).append(' ');
    if (line.size() == 1) {
      sb.append(first.object().render(first.verb(), family, objectComments)).append('\n');
      return;
    }
    Element head = (Element) first.object();
    sb.append("element ").append(NftObject.tableRef(family)).append(' ').append(head.container()).append(" { ");
    for (int i = 0; i < line.size(); i++) {
      if (i > 0) {
        sb.append(" , ");
      }
      ((Element) line.get(i).object()).renderItem(sb, first.verb());
    }
    sb.append(" }\n");
  }

  public String render(IpFamily family) {
    return render(family, true);
  }

  /** The "nft -f -" input with each command on a line of its own (line N is operation N-1). */
  public String renderOnePerLine(IpFamily family, boolean objectComments) {
    StringBuilder sb = new StringBuilder(operations.size() * 96);
    for (Operation op : operations) {
      renderLine(sb, List.of(op), family, objectComments);
    }
    return sb.toString();
  }
}
