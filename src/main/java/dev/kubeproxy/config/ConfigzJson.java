package dev.kubeproxy.config;

import io.vertx.core.json.JsonObject;

/**
 * The body of /configz (cmd/kube-proxy/app/server.go newProxyServer registers the configuration
 * with component-base/configz): one section, "kubeproxy.config.k8s.io", holding the public
 * KubeProxyConfiguration with its apiVersion and kind, converted back from the completed
 * configuration as --write-config-to writes it (upstream has served the versioned type since
 * v1.36 instead of its internal struct).
 */
public final class ConfigzJson {
  private ConfigzJson() {}

  public static final String SECTION = "kubeproxy.config.k8s.io";
  public static final String API_VERSION = SECTION + "/v1alpha1";
  public static final String KIND = "KubeProxyConfiguration";

  /** {@code {"kubeproxy.config.k8s.io": {"kind": "KubeProxyConfiguration", "apiVersion": ..., ...}}}. */
  public static JsonObject of(KubeProxyConfiguration c) {
    return new JsonObject().put(SECTION, versioned(c));
  }

  /** The single-line JSON text /configz answers with. */
  public static String encode(KubeProxyConfiguration c) {
    return of(c).encode();
  }

  /** The v1alpha1 object alone: TypeMeta first, as encoding/json prints an inlined TypeMeta. */
  public static JsonObject versioned(KubeProxyConfiguration c) {
    JsonObject fields = new JsonObject(ConfigCodec.toV1Alpha1(c).toString());
    JsonObject o = new JsonObject().put("kind", KIND).put("apiVersion", API_VERSION);
    fields.forEach(e -> {
      if (!e.getKey().equals("kind") && !e.getKey().equals("apiVersion")) {
        o.put(e.getKey(), e.getValue());
      }
    });
    return o;
  }
}
