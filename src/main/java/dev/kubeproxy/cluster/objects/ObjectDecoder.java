package dev.kubeproxy.cluster.objects;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the lean objects from a JSON tree (an API list item or watch object, or a --manifests
 * YAML/JSON document). Like upstream's Go decoder it ignores fields it does not know and refuses
 * a known field of the wrong type (a port "eighty"); the error names the field. Values repeated
 * across many objects (namespaces, node names, zones, protocols, port names, label keys and
 * values) are interned, so 10,000 EndpointSlices do not each carry their own copies.
 */
public final class ObjectDecoder {
  /** A known field of the wrong type; the message starts with its path. */
  public static final class DecodeException extends RuntimeException {
    DecodeException(String message) {
      super(message, null, false, false);
    }

    DecodeException at(String prefix) {
      String m = getMessage();
      return new DecodeException(prefix + (m.startsWith("[") ? "" : ".") + m);
    }
  }

  /** Reads one kind of object; objects without a namespace get defaultNamespace. */
  @FunctionalInterface
  public interface Reader<T> {
    T read(JsonNode object, String defaultNamespace);
  }

  private static final Set<String> READ_ANNOTATIONS = Set.copyOf(ObjectMeta.READ_ANNOTATIONS);

  private ObjectDecoder() {}

  public static Service service(JsonNode o, String defaultNamespace) {
    ObjectMeta meta = metadata(o, defaultNamespace);
    JsonNode spec = object(o, "spec");
    List<Service.Port> ports = new ArrayList<>();
    try {
      JsonNode clientIP = object(object(spec, "sessionAffinityConfig"), "clientIP");
      forEach(spec, "ports", p -> ports.add(new Service.Port(text(p, "name", true), text(p, "protocol", true),
          integer(p, "port"), integer(p, "nodePort"), targetPortNumber(p), targetPortName(p))));
      return new Service(meta, text(spec, "type", true), text(spec, "clusterIP", false),
          texts(spec, "clusterIPs", false), texts(spec, "ipFamilies", true), text(spec, "ipFamilyPolicy", true),
          ports, texts(spec, "externalIPs", false), texts(spec, "loadBalancerSourceRanges", false),
          text(spec, "sessionAffinity", true), integer(clientIP, "timeoutSeconds"),
          text(spec, "externalTrafficPolicy", true), text(spec, "internalTrafficPolicy", true),
          integer(spec, "healthCheckNodePort"), text(spec, "trafficDistribution", true), ingress(o));
    } catch (DecodeException e) {
      throw e.at("spec");
    }
  }

  private static List<Service.Ingress> ingress(JsonNode service) {
    List<Service.Ingress> out = new ArrayList<>();
    try {
      forEach(object(object(service, "status"), "loadBalancer"), "ingress", i -> out.add(
          new Service.Ingress(text(i, "ip", false), text(i, "hostname", false), text(i, "ipMode", true))));
    } catch (DecodeException e) {
      throw e.at("status.loadBalancer");
    }
    return out;
  }

  private static Integer targetPortNumber(JsonNode port) {
    JsonNode t = port.get("targetPort");
    return t != null && t.isNumber() ? integer(port, "targetPort") : null;
  }

  private static String targetPortName(JsonNode port) {
    JsonNode t = port.get("targetPort");
    return t != null && !t.isNumber() ? text(port, "targetPort", true) : null;
  }

  public static EndpointSlice endpointSlice(JsonNode o, String defaultNamespace) {
    ObjectMeta meta = metadata(o, defaultNamespace);
    List<EndpointSlice.Endpoint> endpoints = new ArrayList<>();
    forEach(o, "endpoints", e -> {
      JsonNode conditions = object(e, "conditions");
      JsonNode hints = object(e, "hints");
      List<String> zones = new ArrayList<>();
      List<String> nodes = new ArrayList<>();
      try {
        forEach(hints, "forZones", z -> zones.add(text(z, "name", true)));
        forEach(hints, "forNodes", n -> nodes.add(text(n, "name", true)));
      } catch (DecodeException x) {
        throw x.at("hints");
      }
      Boolean[] ready = new Boolean[3];
      try {
        ready[0] = bool(conditions, "ready");
        ready[1] = bool(conditions, "serving");
        ready[2] = bool(conditions, "terminating");
      } catch (DecodeException x) {
        throw x.at("conditions");
      }
      endpoints.add(new EndpointSlice.Endpoint(texts(e, "addresses", false), ready[0], ready[1], ready[2],
          text(e, "hostname", false), text(e, "nodeName", true), text(e, "zone", true), zones, nodes));
    });
    List<EndpointSlice.Port> ports = new ArrayList<>();
    forEach(o, "ports", p -> ports.add(new EndpointSlice.Port(text(p, "name", true), text(p, "protocol", true),
        integer(p, "port"))));
    return new EndpointSlice(meta, text(o, "addressType", true), endpoints, ports);
  }

  public static Node node(JsonNode o, String defaultNamespace) {
    ObjectMeta meta = metadata(o, "");
    JsonNode spec = object(o, "spec");
    List<String> taints = new ArrayList<>();
    List<Node.Address> addresses = new ArrayList<>();
    try {
      forEach(spec, "taints", t -> taints.add(text(t, "key", true)));
    } catch (DecodeException e) {
      throw e.at("spec");
    }
    try {
      forEach(object(o, "status"), "addresses", a -> addresses.add(new Node.Address(text(a, "type", true),
          text(a, "address", false))));
    } catch (DecodeException e) {
      throw e.at("status");
    }
    try {
      return new Node(meta, text(spec, "podCIDR", false), texts(spec, "podCIDRs", false), taints, addresses);
    } catch (DecodeException e) {
      throw e.at("spec");
    }
  }

  public static ServiceCidr serviceCidr(JsonNode o, String defaultNamespace) {
    ObjectMeta meta = metadata(o, "");
    try {
      return new ServiceCidr(meta, texts(object(o, "spec"), "cidrs", false));
    } catch (DecodeException e) {
      throw e.at("spec");
    }
  }

  /** The metadata alone (a deleted object or a bookmark whose rest does not decode). */
  public static ObjectMeta metadata(JsonNode o, String defaultNamespace) {
    JsonNode m = object(o, "metadata");
    try {
      String namespace = text(m, "namespace", true);
      Map<String, String> labels = stringMap(m, "labels", true, null);
      List<String> annotationKeys = new ArrayList<>();
      Map<String, String> annotations = stringMap(m, "annotations", false, annotationKeys);
      annotations.keySet().retainAll(READ_ANNOTATIONS);
      return new ObjectMeta(namespace == null || namespace.isEmpty() ? defaultNamespace : namespace,
          text(m, "name", false), text(m, "resourceVersion", false), labels, annotations, annotationKeys,
          text(m, "deletionTimestamp", false));
    } catch (DecodeException e) {
      throw e.at("metadata");
    }
  }

  // --- typed field access: null when absent or JSON null, an error when of another type ---

  private static JsonNode object(JsonNode parent, String field) {
    JsonNode v = parent == null ? null : parent.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isObject()) {
      throw new DecodeException(field + ": expected an object, got " + describe(v));
    }
    return v;
  }

  private static String text(JsonNode parent, String field, boolean intern) {
    JsonNode v = parent == null ? null : parent.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw new DecodeException(field + ": expected a string, got " + describe(v));
    }
    return intern ? v.textValue().intern() : v.textValue();
  }

  private static Integer integer(JsonNode parent, String field) {
    JsonNode v = parent == null ? null : parent.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isIntegralNumber() || !v.canConvertToInt()) {
      throw new DecodeException(field + ": expected a 32-bit integer, got " + describe(v));
    }
    return v.intValue();
  }

  private static Boolean bool(JsonNode parent, String field) {
    JsonNode v = parent == null ? null : parent.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isBoolean()) {
      throw new DecodeException(field + ": expected a boolean, got " + describe(v));
    }
    return v.booleanValue();
  }

  /** A list of strings; a null element reads as "" (as Go decodes it). */
  private static List<String> texts(JsonNode parent, String field, boolean intern) {
    JsonNode v = array(parent, field);
    if (v == null || v.isEmpty()) {
      return List.of();
    }
    List<String> out = new ArrayList<>(v.size());
    for (int i = 0; i < v.size(); i++) {
      JsonNode e = v.get(i);
      if (e.isNull()) {
        out.add("");
      } else if (!e.isTextual()) {
        throw new DecodeException(field + "[" + i + "]: expected a string, got " + describe(e));
      } else {
        out.add(intern ? e.textValue().intern() : e.textValue());
      }
    }
    return out;
  }

  private static JsonNode array(JsonNode parent, String field) {
    JsonNode v = parent == null ? null : parent.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isArray()) {
      throw new DecodeException(field + ": expected an array, got " + describe(v));
    }
    return v;
  }

  private interface Element {
    void read(JsonNode element);
  }

  /** Each element of an array of objects; a null element reads as an empty object (as Go decodes it). */
  private static void forEach(JsonNode parent, String field, Element element) {
    JsonNode v = array(parent, field);
    if (v == null) {
      return;
    }
    for (int i = 0; i < v.size(); i++) {
      JsonNode e = v.get(i);
      if (!e.isNull() && !e.isObject()) {
        throw new DecodeException(field + "[" + i + "]: expected an object, got " + describe(e));
      }
      try {
        element.read(e.isNull() ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : e);
      } catch (DecodeException x) {
        throw x.at(field + "[" + i + "]");
      }
    }
  }

  private static Map<String, String> stringMap(JsonNode parent, String field, boolean intern, List<String> keys) {
    JsonNode v = object(parent, field);
    if (v == null) {
      return new HashMap<>();
    }
    Map<String, String> out = new HashMap<>();
    for (Map.Entry<String, JsonNode> e : v.properties()) {
      JsonNode value = e.getValue();
      String key = e.getKey().intern();
      if (keys != null) {
        keys.add(key);
      }
      if (value.isNull()) {
        out.put(key, "");
      } else if (!value.isTextual()) {
        throw new DecodeException(field + "." + e.getKey() + ": expected a string, got " + describe(value));
      } else {
        out.put(key, intern ? value.textValue().intern() : value.textValue());
      }
    }
    return out;
  }

  private static String describe(JsonNode v) {
    String s = v.isContainerNode() ? (v.isArray() ? "an array" : "an object") : v.toString();
    return s.length() > 40 ? s.substring(0, 40) + "..." : s;
  }
}
