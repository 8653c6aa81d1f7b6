package dev.kubeproxy.model.objects;

import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the lean objects straight from a JSON or YAML parser (an API list item or watch object, or
 * a --manifests document), without building a tree first: a tree per object would be most of the
 * initial load's reading time and garbage. Like upstream's Go decoder it ignores fields it
 * does not know and refuses a known field of the wrong type (a port "eighty"): the object is still
 * read as far as it goes (its name, for the report) and comes back with a problem naming the field.
 * Values repeated across many objects (namespaces, node names, zones, protocols, port names, label
 * keys and values) are interned, so 10,000 EndpointSlices do not each carry their own copies.
 */
public final class ObjectDecoder {
  /** The object as far as it decodes, and its first field of the wrong type (null when none). */
  public record Decoded<T>(T object, String problem) {}

  /**
   * Reads one kind of object; objects without a namespace get defaultNamespace. The parser stands
   * on the object's START_OBJECT (or JSON null), or on a FIELD_NAME inside it when the caller has
   * read the fields before it (a manifest's apiVersion and kind); it is left on the END_OBJECT (or the null).
   */
  @FunctionalInterface
  public interface Reader<T> {
    Decoded<T> read(JsonParser parser, String defaultNamespace) throws IOException;
  }

  /** One kind's fields read through a cursor. */
  @FunctionalInterface
  private interface Fields<T> {
    T read(JsonCursor in, String defaultNamespace) throws IOException;
  }

  public static final Reader<Service> SERVICE = reader(ObjectDecoder::service);
  public static final Reader<EndpointSlice> ENDPOINT_SLICE = reader(ObjectDecoder::endpointSlice);
  public static final Reader<Node> NODE = reader(ObjectDecoder::node);
  public static final Reader<ServiceCidr> SERVICE_CIDR = reader(ObjectDecoder::serviceCidr);

  private static final Set<String> READ_ANNOTATIONS = Set.copyOf(ObjectMeta.READ_ANNOTATIONS);

  private ObjectDecoder() {}

  private static <T> Reader<T> reader(Fields<T> fields) {
    return (parser, defaultNamespace) -> {
      JsonCursor in = new JsonCursor(parser);
      T object = fields.read(in, defaultNamespace);
      return new Decoded<>(object, in.problem());
    };
  }

  private static Service service(JsonCursor in, String defaultNamespace) throws IOException {
    ObjectMeta meta = null;
    ServiceSpec spec = new ServiceSpec();
    List<Service.Ingress> ingress = List.of();
    for (String f = in.firstField(); f != null; f = in.nextField()) {
      switch (f) {
        case "metadata" -> meta = metadata(in, defaultNamespace, true);
        case "spec" -> spec = serviceSpec(in);
        case "status" -> ingress = orEmpty(in.field("loadBalancer",
            () -> in.field("ingress", () -> in.list(() -> ingress(in)))));
        default -> in.skip();
      }
    }
    return new Service(orEmpty(meta, defaultNamespace), spec.type, spec.clusterIP, spec.clusterIPs, spec.ipFamilies,
        spec.ipFamilyPolicy, spec.ports, spec.externalIPs, spec.loadBalancerSourceRanges, spec.sessionAffinity,
        spec.clientIPTimeoutSeconds, spec.externalTrafficPolicy, spec.internalTrafficPolicy,
        spec.healthCheckNodePort, spec.trafficDistribution, ingress);
  }

  /** A Service's spec as read so far. */
  private static final class ServiceSpec {
    String type;
    String clusterIP;
    List<String> clusterIPs = List.of();
    List<String> ipFamilies = List.of();
    String ipFamilyPolicy;
    List<Service.Port> ports = List.of();
    List<String> externalIPs = List.of();
    List<String> loadBalancerSourceRanges = List.of();
    String sessionAffinity;
    Integer clientIPTimeoutSeconds;
    String externalTrafficPolicy;
    String internalTrafficPolicy;
    Integer healthCheckNodePort;
    String trafficDistribution;
  }

  private static ServiceSpec serviceSpec(JsonCursor in) throws IOException {
    ServiceSpec s = new ServiceSpec();
    for (String f = in.firstField(); f != null; f = in.nextField()) {
      switch (f) {
        case "type" -> s.type = in.text(true);
        case "clusterIP" -> s.clusterIP = in.text(false);
        case "clusterIPs" -> s.clusterIPs = in.texts(false);
        case "ipFamilies" -> s.ipFamilies = in.texts(true);
        case "ipFamilyPolicy" -> s.ipFamilyPolicy = in.text(true);
        case "ports" -> s.ports = in.list(() -> servicePort(in));
        case "externalIPs" -> s.externalIPs = in.texts(false);
        case "loadBalancerSourceRanges" -> s.loadBalancerSourceRanges = in.texts(false);
        case "sessionAffinity" -> s.sessionAffinity = in.text(true);
        case "sessionAffinityConfig" -> s.clientIPTimeoutSeconds =
            in.field("clientIP", () -> in.field("timeoutSeconds", in::integer));
        case "externalTrafficPolicy" -> s.externalTrafficPolicy = in.text(true);
        case "internalTrafficPolicy" -> s.internalTrafficPolicy = in.text(true);
        case "healthCheckNodePort" -> s.healthCheckNodePort = in.integer();
        case "trafficDistribution" -> s.trafficDistribution = in.text(true);
        default -> in.skip();
      }
    }
    // clusterIPs[0] repeats clusterIP: one String for both, as every Service is kept while it exists
    if (s.clusterIP != null && !s.clusterIPs.isEmpty() && s.clusterIP.equals(s.clusterIPs.get(0))
        && s.clusterIP != s.clusterIPs.get(0)) {
      List<String> ips = new ArrayList<>(s.clusterIPs);
      ips.set(0, s.clusterIP);
      s.clusterIPs = ips;
    }
    return s;
  }

  private static Service.Port servicePort(JsonCursor in) throws IOException {
    String name = null;
    String protocol = null;
    Integer port = null;
    Integer nodePort = null;
    Integer targetPortNumber = null;
    String targetPortName = null;
    for (String f = in.firstField(); f != null; f = in.nextField()) {
      switch (f) {
        case "name" -> name = in.text(true);
        case "protocol" -> protocol = in.text(true);
        case "port" -> port = in.port();
        case "nodePort" -> nodePort = in.port();
        case "targetPort" -> { // an IntOrString
          boolean number = in.isNumber();
          targetPortNumber = number ? in.port() : null;
          targetPortName = number ? null : in.text(true);
        }
        default -> in.skip();
      }
    }
    return new Service.Port(name, protocol, port, nodePort, targetPortNumber, targetPortName);
  }

  private static Service.Ingress ingress(JsonCursor in) throws IOException {
    String ip = null;
    String hostname = null;
    String ipMode = null;
    for (String f = in.firstField(); f != null; f = in.nextField()) {
      switch (f) {
        case "ip" -> ip = in.text(false);
        case "hostname" -> hostname = in.text(false);
        case "ipMode" -> ipMode = in.text(true);
        default -> in.skip();
      }
    }
    return new Service.Ingress(ip, hostname, ipMode);
  }

  private static EndpointSlice endpointSlice(JsonCursor in, String defaultNamespace) throws IOException {
    ObjectMeta meta = null;
    String addressType = null;
    List<EndpointSlice.Endpoint> endpoints = List.of();
    List<EndpointSlice.Port> ports = List.of();
    for (String f = in.firstField(); f != null; f = in.nextField()) {
      switch (f) {
        case "metadata" -> meta = metadata(in, defaultNamespace, false);
        case "addressType" -> addressType = in.text(true);
        case "endpoints" -> endpoints = in.list(() -> endpoint(in));
        case "ports" -> ports = in.list(() -> endpointPort(in));
        default -> in.skip();
      }
    }
    return new EndpointSlice(orEmpty(meta, defaultNamespace), addressType, endpoints, ports);
  }

  private static EndpointSlice.Endpoint endpoint(JsonCursor in) throws IOException {
    List<String> addresses = List.of();
    Boolean ready = null;
    Boolean serving = null;
    Boolean terminating = null;
    String hostname = null;
    String nodeName = null;
    String zone = null;
    List<String> zoneHints = List.of();
    List<String> nodeHints = List.of();
    for (String f = in.firstField(); f != null; f = in.nextField()) {
      switch (f) {
        case "addresses" -> addresses = in.texts(false);
        case "conditions" -> {
          for (String c = in.firstField(); c != null; c = in.nextField()) {
            switch (c) {
              case "ready" -> ready = in.bool();
              case "serving" -> serving = in.bool();
              case "terminating" -> terminating = in.bool();
              default -> in.skip();
            }
          }
        }
        case "hostname" -> hostname = in.text(false);
        case "nodeName" -> nodeName = in.text(true);
        case "zone" -> zone = in.text(true);
        case "hints" -> {
          for (String h = in.firstField(); h != null; h = in.nextField()) {
            switch (h) {
              case "forZones" -> zoneHints = names(in);
              case "forNodes" -> nodeHints = names(in);
              default -> in.skip();
            }
          }
        }
        default -> in.skip();
      }
    }
    return new EndpointSlice.Endpoint(addresses, ready, serving, terminating, hostname, nodeName, zone, zoneHints,
        nodeHints);
  }

  /** The names of a list of {name: ...} objects (hints, taints' keys): "" for a missing one, as Go reads it. */
  private static List<String> names(JsonCursor in) throws IOException {
    return in.list(() -> orEmpty(in.field("name", () -> in.text(true))));
  }

  private static EndpointSlice.Port endpointPort(JsonCursor in) throws IOException {
    String name = null;
    String protocol = null;
    Integer port = null;
    for (String f = in.firstField(); f != null; f = in.nextField()) {
      switch (f) {
        case "name" -> name = in.text(true);
        case "protocol" -> protocol = in.text(true);
        case "port" -> port = in.port();
        default -> in.skip();
      }
    }
    return new EndpointSlice.Port(name, protocol, port);
  }

  private static Node node(JsonCursor in, String defaultNamespace) throws IOException {
    ObjectMeta meta = null;
    String podCIDR = null;
    List<String> podCIDRs = List.of();
    List<String> taintKeys = List.of();
    List<Node.Address> addresses = List.of();
    for (String f = in.firstField(); f != null; f = in.nextField()) {
      switch (f) {
        case "metadata" -> meta = metadata(in, "", false);
        case "spec" -> {
          for (String s = in.firstField(); s != null; s = in.nextField()) {
            switch (s) {
              case "podCIDR" -> podCIDR = in.text(false);
              case "podCIDRs" -> podCIDRs = in.texts(false);
              case "taints" -> taintKeys = in.list(() -> orEmpty(in.field("key", () -> in.text(true))));
              default -> in.skip();
            }
          }
        }
        case "status" -> addresses = orEmpty(in.field("addresses", () -> in.list(() -> nodeAddress(in))));
        default -> in.skip();
      }
    }
    return new Node(orEmpty(meta, ""), podCIDR, podCIDRs, taintKeys, addresses);
  }

  private static Node.Address nodeAddress(JsonCursor in) throws IOException {
    String type = null;
    String address = null;
    for (String f = in.firstField(); f != null; f = in.nextField()) {
      switch (f) {
        case "type" -> type = in.text(true);
        case "address" -> address = in.text(false);
        default -> in.skip();
      }
    }
    return new Node.Address(type, address);
  }

  private static ServiceCidr serviceCidr(JsonCursor in, String defaultNamespace) throws IOException {
    ObjectMeta meta = null;
    List<String> cidrs = List.of();
    for (String f = in.firstField(); f != null; f = in.nextField()) {
      switch (f) {
        case "metadata" -> meta = metadata(in, "", false);
        case "spec" -> cidrs = orEmpty(in.field("cidrs", () -> in.texts(false)));
        default -> in.skip();
      }
    }
    return new ServiceCidr(orEmpty(meta, ""), cidrs);
  }

  /** @param internName a Service's: its EndpointSlices' service-name label, interned, repeats it */
  private static ObjectMeta metadata(JsonCursor in, String defaultNamespace, boolean internName) throws IOException {
    String namespace = null;
    String name = null;
    String resourceVersion = null;
    Map<String, String> labels = null;
    Map<String, String> annotations = null;
    List<String> annotationKeys = List.of();
    String deletionTimestamp = null;
    for (String f = in.firstField(); f != null; f = in.nextField()) {
      switch (f) {
        case "namespace" -> namespace = in.text(true);
        case "name" -> name = in.text(internName);
        case "resourceVersion" -> resourceVersion = in.text(false);
        case "labels" -> labels = in.stringMap(true, null, null);
        case "annotations" -> {
          annotationKeys = new ArrayList<>();
          annotations = in.stringMap(false, annotationKeys, READ_ANNOTATIONS);
        }
        case "deletionTimestamp" -> deletionTimestamp = in.text(false);
        default -> in.skip();
      }
    }
    return new ObjectMeta(namespace == null || namespace.isEmpty() ? defaultNamespace : namespace, name,
        resourceVersion, labels, annotations, annotationKeys, deletionTimestamp);
  }

  private static ObjectMeta orEmpty(ObjectMeta meta, String defaultNamespace) {
    return meta != null ? meta : new ObjectMeta(defaultNamespace, null, null, null, null, List.of(), null);
  }

  private static <V> List<V> orEmpty(List<V> list) {
    return list != null ? list : List.of();
  }

  private static String orEmpty(String s) {
    return s != null ? s : "";
  }
}
