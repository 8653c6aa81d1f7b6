package dev.kubeproxy.backend.nftables.objects;

import java.util.Objects;

/**
 * A verdict: the final statement of a rule ("goto service-…", "drop") or the value of an element
 * of a verdict map.
 *
 * @param chain the target of jump and goto, null for the others
 */
public record Verdict(Kind kind, String chain) implements Statement, ElementValue {
  public enum Kind { JUMP, GOTO, DROP, ACCEPT, RETURN }

  public static final Verdict DROP = new Verdict(Kind.DROP, null);
  public static final Verdict ACCEPT = new Verdict(Kind.ACCEPT, null);
  public static final Verdict RETURN = new Verdict(Kind.RETURN, null);

  public Verdict {
    Objects.requireNonNull(kind, "kind");
    if ((kind == Kind.JUMP || kind == Kind.GOTO) != (chain != null)) {
      throw new IllegalArgumentException("jump and goto (only) name a chain: " + kind + " " + chain);
    }
  }

  public static Verdict jump(String chain) {
    return new Verdict(Kind.JUMP, chain);
  }

  public static Verdict goTo(String chain) {
    return new Verdict(Kind.GOTO, chain);
  }

  @Override
  public void render(StringBuilder sb, String ip) {
    sb.append(text());
  }

  @Override
  public String text() {
    return chain == null ? kind.name().toLowerCase(java.util.Locale.ROOT)
        : kind.name().toLowerCase(java.util.Locale.ROOT) + " " + chain;
  }

  @Override
  public java.util.List<String> chains() {
    return chain == null ? java.util.List.of() : java.util.List.of(chain);
  }
}
