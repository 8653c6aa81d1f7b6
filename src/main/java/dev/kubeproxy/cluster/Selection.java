package dev.kubeproxy.cluster;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.ClusterEvent.Kind;
import dev.kubeproxy.model.objects.ClusterObject;
import dev.kubeproxy.model.objects.ObjectMeta;
import dev.kubeproxy.model.objects.Service;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the agent watches of one kind, as upstream's informers select it (cmd/kube-proxy/app
 * server.go newProxyServer / Run): Services without the service-proxy-name and headless labels
 * and not headless (field selector spec.clusterIP!=None, as upstream since 1.32), EndpointSlices
 * with the same label selector, every ServiceCIDR (always since 1.33, when MultiCIDRServiceAllocator
 * went GA) and the own Node by name. The informers send the selectors to the API server; the --manifests source
 * applies the same selectors itself through {@link #matches}.
 *
 * @param labelSelector "" or comma-separated requirements: {@code key}, {@code !key},
 *                      {@code key=value}, {@code key==value}, {@code key!=value}
 * @param fieldSelector "" or comma-separated {@code field=value} / {@code field!=value} over
 *                      metadata.name, metadata.namespace and (Services) spec.clusterIP
 */
record Selection(Kind kind, String labelSelector, String fieldSelector) {
  /** Objects for another proxy and headless Services' slices are not ours (upstream server.go). */
  static final String NOT_OURS = "!service.kubernetes.io/service-proxy-name,!service.kubernetes.io/headless";

  /** Every kind the agent watches with this configuration, the own Node last. */
  static List<Selection> watched(AgentOptions options) {
    List<Selection> out = new ArrayList<>();
    out.add(new Selection(Kind.SERVICE, NOT_OURS, "spec.clusterIP!=None"));
    out.add(new Selection(Kind.ENDPOINT_SLICE, NOT_OURS, ""));
    out.add(new Selection(Kind.SERVICE_CIDR, "", ""));
    out.add(new Selection(Kind.NODE, "", "metadata.name=" + options.hostname()));
    return out;
  }

  /** Whether the object passes both selectors (as the API server would filter it). */
  boolean matches(ClusterObject object) {
    return labelsMatch(object.metadata().labels()) && fieldsMatch(object, object.metadata());
  }

  boolean labelsMatch(Map<String, String> labels) {
    for (String requirement : parts(labelSelector)) {
      if (requirement.startsWith("!")) {
        if (labels.containsKey(requirement.substring(1))) {
          return false;
        }
        continue;
      }
      String[] kv = split(requirement);
      if (kv == null) {
        if (!labels.containsKey(requirement)) {
          return false;
        }
      } else if (kv[1].equals("!=") == kv[2].equals(labels.get(kv[0]))) {
        return false;
      }
    }
    return true;
  }

  private boolean fieldsMatch(ClusterObject object, ObjectMeta meta) {
    for (String requirement : parts(fieldSelector)) {
      String[] kv = split(requirement);
      if (kv == null) {
        throw new IllegalArgumentException("field selector " + requirement + " has no = or !=");
      }
      String value = switch (kv[0]) {
        case "metadata.name" -> meta.name();
        case "metadata.namespace" -> meta.namespace();
        case "spec.clusterIP" -> object instanceof Service s && s.clusterIP() != null ? s.clusterIP() : "";
        default -> throw new IllegalArgumentException("field selector over " + kv[0] + " is not supported");
      };
      if (kv[1].equals("!=") == kv[2].equals(value)) {
        return false;
      }
    }
    return true;
  }

  private static List<String> parts(String selector) {
    return selector.isEmpty() ? List.of() : List.of(selector.split(","));
  }

  /** key, operator ("=", "==" or "!="), value; null without an operator. */
  private static String[] split(String requirement) {
    int ne = requirement.indexOf("!=");
    if (ne > 0) {
      return new String[] {requirement.substring(0, ne), "!=", requirement.substring(ne + 2)};
    }
    int eq = requirement.indexOf('=');
    if (eq < 0) {
      return null;
    }
    int valueStart = requirement.startsWith("==", eq) ? eq + 2 : eq + 1;
    return new String[] {requirement.substring(0, eq), "=", requirement.substring(valueStart)};
  }
}
