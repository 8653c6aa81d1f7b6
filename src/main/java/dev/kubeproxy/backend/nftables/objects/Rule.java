package dev.kubeproxy.backend.nftables.objects;

import dev.kubeproxy.backend.nftables.objects.Comments;

import dev.kubeproxy.net.IpFamily;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A rule appended to a chain: matches, then one statement, in the typed form that is rendered to
 * nft text (dry run, "nft -f") and encoded to netlink expressions, each once. Rule comments are
 * always written, whatever the nft version.
 */
public record Rule(String chain, List<Match> matches, Statement statement, String comment) implements NftObject {

  public Rule {
    matches = List.copyOf(matches);
    java.util.Objects.requireNonNull(statement, "statement");
    comment = Comments.fit(comment);
  }

  public Rule(String chain, List<Match> matches, Statement statement) {
    this(chain, matches, statement, null);
  }

  public Rule(String chain, Statement statement) {
    this(chain, List.of(), statement, null);
  }

  /** The rule body as nft writes it, e.g. "ip daddr 10.0.0.1 tcp dport 80 drop". */
  public String text(IpFamily family) {
    StringBuilder sb = new StringBuilder(64);
    body(sb, Transaction.familyKeyword(family));
    return sb.toString();
  }

  private void body(StringBuilder sb, String ip) {
    for (Match m : matches) {
      m.render(sb, ip);
      sb.append(' ');
    }
    statement.render(sb, ip);
  }

  /** The chains this rule jumps or goes to. */
  public List<String> chainReferences() {
    return statement.chains();
  }

  /** The sets and maps this rule refers to. */
  public Set<String> setReferences() {
    Set<String> sets = new LinkedHashSet<>();
    for (Match m : matches) {
      sets.addAll(m.sets());
    }
    sets.addAll(statement.sets());
    return sets;
  }

  @Override
  public String render(Transaction.Verb verb, IpFamily family, boolean objectComments) {
    StringBuilder sb = new StringBuilder(96).append("rule ").append(Transaction.familyKeyword(family)).append(' ')
        .append(Transaction.TABLE).append(' ').append(chain).append(' ');
    body(sb, Transaction.familyKeyword(family));
    if (comment != null) {
      sb.append(" comment ").append(NftObject.quote(comment));
    }
    return sb.toString();
  }

  /** Builds a rule match by match. */
  public static final class Builder {
    private final String chain;
    private final List<Match> matches = new ArrayList<>(4);

    public Builder(String chain) {
      this.chain = chain;
    }

    public Builder match(Match m) {
      matches.add(m);
      return this;
    }

    public Rule then(Statement statement) {
      return new Rule(chain, matches, statement, null);
    }

    public Rule then(Statement statement, String comment) {
      return new Rule(chain, matches, statement, comment);
    }
  }
}
