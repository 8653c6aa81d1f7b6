package dev.kubeproxy.trace.nftables.json;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.ElementValue;
import dev.kubeproxy.backend.nftables.objects.NftMap;
import dev.kubeproxy.backend.nftables.objects.NftObject;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Verdict;
import java.util.ArrayList;
import java.util.List;

/**
 * Sets and maps as nft -j prints them: the declaration ("type", "map", "flags", "timeout") and the
 * "elem" list, each element's key in the text the tracer matches a packet's fields against
 * ("10.96.0.1", "tcp", "80", "10.0.0.0/8", "0-12252239"), joined parts of a concatenation, and a
 * map's value: a verdict or an endpoint ("address . port").
 */
final class Elements {
  private Elements() {}

  /** The declaration of a "set" or "map" object. */
  static NftObject declaration(String kind, JsonNode c) {
    String name = c.path("name").asText();
    String type = typeText(c.path("type"));
    List<String> flags = texts(c.path("flags"));
    String comment = c.hasNonNull("comment") ? c.get("comment").asText() : null;
    if (kind.equals("map")) {
      return new NftMap(name, type + " : " + typeText(c.path("map")), flags, comment);
    }
    return new NftSet(name, type, flags, c.path("timeout").asInt(0), comment);
  }

  /** The elements of a set or map. */
  static List<Element> of(String kind, JsonNode c) {
    String name = c.path("name").asText();
    List<Element> out = new ArrayList<>();
    for (JsonNode item : c.path("elem")) {
      if (kind.equals("map")) {
        if (!item.isArray() || item.size() != 2) {
          throw new IllegalArgumentException("map " + name + ": an element that is not [key, value]: " + item);
        }
        JsonNode key = item.get(0);
        out.add(new Element(name, true, key(name, key), value(name, item.get(1)), comment(key)));
      } else {
        out.add(new Element(name, false, key(name, item), null, comment(item)));
      }
    }
    return out;
  }

  /** A verdict object ({"goto": {"target": c}}, {"drop": null}, ...), or null when it is none. */
  static Verdict verdict(JsonNode v) {
    if (!v.isObject() || v.size() != 1) {
      return null;
    }
    String kind = RuleExpressions.kind(v);
    return switch (kind) {
      case "accept" -> Verdict.ACCEPT;
      case "drop" -> Verdict.DROP;
      case "return" -> Verdict.RETURN;
      case "jump" -> Verdict.jump(v.get(kind).path("target").asText());
      case "goto" -> Verdict.goTo(v.get(kind).path("target").asText());
      default -> null;
    };
  }

  /** One part of a key: an address, a prefix, a range, a protocol or a number. */
  static String keyPart(JsonNode part) {
    if (part.isTextual() || part.isNumber()) {
      return part.asText();
    }
    if (part.has("prefix")) {
      JsonNode p = part.get("prefix");
      return p.path("addr").asText() + "/" + p.path("len").asInt();
    }
    if (part.has("range") && part.get("range").size() == 2) {
      return keyPart(part.get("range").get(0)) + "-" + keyPart(part.get("range").get(1));
    }
    throw new IllegalArgumentException("a key part the tracer does not read: " + part);
  }

  private static List<String> key(String container, JsonNode key) {
    JsonNode k = key.has("elem") ? key.get("elem").path("val") : key;
    List<String> parts = new ArrayList<>();
    try {
      if (k.has("concat")) {
        for (JsonNode p : k.get("concat")) {
          parts.add(keyPart(p));
        }
      } else {
        parts.add(keyPart(k));
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(container + ": " + e.getMessage(), e);
    }
    return parts;
  }

  private static ElementValue value(String map, JsonNode v) {
    Verdict verdict = verdict(v);
    if (verdict != null) {
      return verdict;
    }
    JsonNode parts = v.path("concat");
    if (parts.size() == 2 && parts.get(0).isTextual() && parts.get(1).isInt()) {
      return new ElementValue.Target(parts.get(0).asText(), parts.get(1).asInt());
    }
    throw new IllegalArgumentException("map " + map + ": a value that is neither a verdict nor an endpoint: " + v);
  }

  private static String comment(JsonNode key) {
    JsonNode c = key.path("elem").path("comment");
    return c.isTextual() ? c.asText() : null;
  }

  private static String typeText(JsonNode type) {
    return String.join(" . ", texts(type));
  }

  private static List<String> texts(JsonNode node) {
    List<String> out = new ArrayList<>();
    if (node.isArray()) {
      node.forEach(n -> out.add(n.asText()));
    } else if (!node.isMissingNode() && !node.isNull()) {
      out.add(node.asText());
    }
    return out;
  }
}
