package dev.kubeproxy.testapi;

import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A parsed label or field selector: a conjunction of requirements with the operators the API
 * server accepts (=, ==, !=, key, !key, in, notin). Field selectors use the same syntax on the
 * values of metadata.name, metadata.namespace and, for Services, spec.clusterIP and spec.type.
 */
final class Selector {
  private enum Op { EQ, NE, EXISTS, NOT_EXISTS, IN, NOT_IN }

  private record Requirement(String key, Op op, Set<String> values) {
    boolean matches(Function<String, String> lookup) {
      String v = lookup.apply(key);
      return switch (op) {
        case EQ -> v != null && values.contains(v);
        case NE -> v == null || !values.contains(v);
        case EXISTS -> v != null;
        case NOT_EXISTS -> v == null;
        case IN -> v != null && values.contains(v);
        case NOT_IN -> v == null || !values.contains(v);
      };
    }
  }

  static final Selector EVERYTHING = new Selector(List.of());

  private final List<Requirement> requirements;

  private Selector(List<Requirement> requirements) {
    this.requirements = requirements;
  }

  /** Parses a selector; throws IllegalArgumentException with the reason on bad syntax. */
  static Selector parse(String text) {
    if (text == null || text.isBlank()) {
      return EVERYTHING;
    }
    List<Requirement> out = new ArrayList<>();
    for (String term : splitTerms(text)) {
      String t = term.trim();
      if (t.isEmpty()) {
        throw new IllegalArgumentException("empty requirement in selector \"" + text + "\"");
      }
      out.add(parseTerm(t));
    }
    return new Selector(out);
  }

  private static List<String> splitTerms(String text) {
    List<String> terms = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '(') depth++;
      else if (c == ')') depth--;
      else if (c == ',' && depth == 0) {
        terms.add(text.substring(start, i));
        start = i + 1;
      }
    }
    terms.add(text.substring(start));
    return terms;
  }

  private static Requirement parseTerm(String t) {
    if (t.startsWith("!")) {
      return new Requirement(t.substring(1).trim(), Op.NOT_EXISTS, Set.of());
    }
    int paren = t.indexOf('(');
    if (paren > 0) {
      String head = t.substring(0, paren).trim();
      if (!t.endsWith(")")) {
        throw new IllegalArgumentException("unterminated value list in \"" + t + "\"");
      }
      Set<String> values = Set.of(t.substring(paren + 1, t.length() - 1).split("\\s*,\\s*"));
      String[] parts = head.split("\\s+");
      if (parts.length != 2) {
        throw new IllegalArgumentException("cannot parse requirement \"" + t + "\"");
      }
      Op op = switch (parts[1]) {
        case "in" -> Op.IN;
        case "notin" -> Op.NOT_IN;
        default -> throw new IllegalArgumentException("unknown operator \"" + parts[1] + "\"");
      };
      return new Requirement(parts[0], op, values);
    }
    int ne = t.indexOf("!=");
    if (ne > 0) {
      return new Requirement(t.substring(0, ne).trim(), Op.NE, Set.of(t.substring(ne + 2).trim()));
    }
    int eq = t.indexOf("==");
    if (eq > 0) {
      return new Requirement(t.substring(0, eq).trim(), Op.EQ, Set.of(t.substring(eq + 2).trim()));
    }
    eq = t.indexOf('=');
    if (eq > 0) {
      return new Requirement(t.substring(0, eq).trim(), Op.EQ, Set.of(t.substring(eq + 1).trim()));
    }
    return new Requirement(t, Op.EXISTS, Set.of());
  }

  boolean matchesLabels(JsonObject object) {
    JsonObject meta = object.getJsonObject("metadata", new JsonObject());
    JsonObject labels = meta.getJsonObject("labels", new JsonObject());
    Map<String, Object> map = labels.getMap();
    return requirements.stream().allMatch(r -> r.matches(k -> map.get(k) == null ? null : String.valueOf(map.get(k))));
  }

  /**
   * Field selectors on the fields the API server indexes for these kinds: metadata.name and
   * metadata.namespace everywhere, and for Services spec.clusterIP and spec.type (1.31+, #123905;
   * kube-proxy 1.32 watches with spec.clusterIP!=None).
   */
  boolean matchesFields(JsonObject object) {
    return requirements.stream().allMatch(r -> r.matches(k -> fieldValue(object, k)));
  }

  private static String fieldValue(JsonObject object, String key) {
    JsonObject meta = object.getJsonObject("metadata", new JsonObject());
    JsonObject spec = object.getJsonObject("spec", new JsonObject());
    return switch (key) {
      case "metadata.name" -> meta.getString("name");
      case "metadata.namespace" -> meta.getString("namespace", "");
      case "spec.clusterIP" -> spec.getString("clusterIP", "");
      case "spec.type" -> spec.getString("type", "");
      default -> throw new IllegalArgumentException("field label not supported: " + key);
    };
  }

  /** The keys the requirements are about. */
  List<String> keys() {
    return requirements.stream().map(r -> r.key).toList();
  }

  /** Rejects what the API server rejects: unknown field labels of the kind, and set-based operators. */
  void checkFieldKeys(String kind) {
    Set<String> supported = kind.equals("Service")
        ? Set.of("metadata.name", "metadata.namespace", "spec.clusterIP", "spec.type")
        : Set.of("metadata.name", "metadata.namespace");
    for (Requirement r : requirements) {
      if (!supported.contains(r.key)) {
        throw new IllegalArgumentException("field label not supported: " + r.key);
      }
      if (r.op != Op.EQ && r.op != Op.NE) {
        throw new IllegalArgumentException("invalid field selector operator for " + r.key
            + ": only =, == and != are allowed");
      }
    }
  }
}
