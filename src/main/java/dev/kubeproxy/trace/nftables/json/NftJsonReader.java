package dev.kubeproxy.trace.nftables.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Statement;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.trace.nftables.NftRuleset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads one family's kube-proxy table from {@code nft -j list table ip|ip6 kube-proxy} into the
 * {@link NftRuleset} the nftables tracer walks: chains (base chains with type, hook and priority),
 * rules in their chain's order ({@link RuleExpressions}), sets and maps with their elements
 * ({@link Elements}). Anything the tracer could not follow is refused with its JSON, never skipped.
 */
public final class NftJsonReader {
  /** The table name the agent writes (upstream's kubeProxyTable). */
  static final String TABLE = "kube-proxy";
  private static final ObjectMapper JSON = new ObjectMapper();

  private NftJsonReader() {}

  /**
   * @param family the family whose table was listed (ip for IPv4, ip6 for IPv6)
   * @param json   nft -j's output
   * @throws IllegalArgumentException when it is not nft JSON of that table, or holds what the tracer cannot follow
   */
  public static NftRuleset read(IpFamily family, String json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not nft -j output: " + e.getOriginalMessage(), e);
    }
    JsonNode objects = root == null ? null : root.get("nftables");
    if (objects == null || !objects.isArray()) {
      throw new IllegalArgumentException("not nft -j output: no \"nftables\" array");
    }
    String familyWord = family == IpFamily.IPv6 ? "ip6" : "ip";
    NftRuleset.Builder table = new NftRuleset.Builder(family);
    List<JsonNode> rules = new ArrayList<>();
    List<JsonNode> containers = new ArrayList<>();
    boolean tableSeen = false;
    // Declarations first: nft lists rules after every chain, but a rule may name any chain or set.
    for (JsonNode o : objects) {
      String kind = RuleExpressions.kind(o);
      JsonNode body = o.get(kind);
      if (kind.equals("metainfo")) {
        continue;
      }
      String where = kind.equals("table") ? body.path("name").asText() : body.path("table").asText();
      if (!body.path("family").asText().equals(familyWord) || !where.equals(TABLE)) {
        throw new IllegalArgumentException("the listing holds a " + kind + " of table " + body.path("family").asText()
            + " " + where + ", not of " + familyWord + " " + TABLE);
      }
      switch (kind) {
        case "table" -> tableSeen = true;
        case "chain" -> table.chain(chain(body));
        case "set", "map" -> {
          table.container(Elements.declaration(kind, body));
          containers.add(o);
        }
        case "rule" -> rules.add(body);
        case "counter" -> { } // named counters count, and change no packet's path
        default -> throw new IllegalArgumentException("the listing holds a " + kind + ", which the agent never writes: "
            + o);
      }
    }
    if (!tableSeen) {
      throw new IllegalArgumentException("the listing has no table " + familyWord + " " + TABLE);
    }
    List<Rule> typed = new ArrayList<>();
    Set<String> learned = new HashSet<>();
    for (JsonNode r : rules) {
      Rule rule = RuleExpressions.read(r.path("chain").asText(), r);
      typed.add(rule);
      if (rule.statement() instanceof Statement.RememberSource s) {
        learned.add(s.set());
      }
    }
    // The sources session affinity learned from packets are left out: the tracer answers for a new
    // client, as the model does (nft -j does not print the "dynamic" flag that would tell these sets).
    for (JsonNode c : containers) {
      String kind = RuleExpressions.kind(c);
      if (!learned.contains(c.get(kind).path("name").asText())) {
        Elements.of(kind, c.get(kind)).forEach(table::element);
      }
    }
    typed.forEach(table::rule);
    return table.build();
  }

  private static Chain chain(JsonNode c) {
    String comment = c.hasNonNull("comment") ? c.get("comment").asText() : null;
    if (!c.has("hook")) {
      return new Chain(c.path("name").asText(), null, null, null, comment);
    }
    // The tracer's chains have no policy: a base chain that drops what no rule took is not one it can follow.
    if (c.has("policy") && !c.get("policy").asText().equals("accept")) {
      throw new IllegalArgumentException("base chain " + c.path("name").asText() + " has policy "
          + c.get("policy").asText() + "; the agent writes only policy accept");
    }
    if (!c.path("prio").isInt()) {
      throw new IllegalArgumentException("base chain " + c.path("name").asText() + " has no numeric priority: " + c);
    }
    return new Chain(c.path("name").asText(), c.path("type").asText(), c.path("hook").asText(),
        c.get("prio").asInt(), comment);
  }
}
