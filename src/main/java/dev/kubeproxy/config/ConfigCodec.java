package dev.kubeproxy.config;

import dev.kubeproxy.gotext.GoDuration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes KubeProxyConfiguration files (cmd/kube-proxy/app/options.go Options.loadConfig and
 * Options.writeConfigFile): YAML or JSON, strict decoding
 * (unknown and duplicate fields are reported) with the caller falling back to the leniently decoded
 * object, v1alpha1 defaulting, and the v1alpha1 YAML output of --write-config-to. The fields and
 * their Go types are declared once, on {@link KubeProxyConfiguration}; {@link ConfigSchema} binds them.
 */
public final class ConfigCodec {
  private ConfigCodec() {}

  /**
   * A decoded configuration (defaults applied). {@code strictErrors} lists what strict decoding
   * rejects (unknown or duplicate fields); the object is then the lenient result, where unknown
   * fields are dropped and for duplicate keys the last one wins.
   */
  public record Decoded(KubeProxyConfiguration config, List<String> strictErrors) {
    public boolean strict() {
      return strictErrors.isEmpty();
    }

    /** upstream's text: {@code strict decoding error: unknown field "x", ...}. */
    public String strictError() {
      return "strict decoding error: " + String.join(", ", strictErrors);
    }
  }

  /**
   * Decodes a file's content.
   *
   * @param source the file name, used in error messages
   * @throws ConfigDecodeException for malformed input, a wrong apiVersion/kind or a wrong value type,
   *     with the file, line and column
   */
  public static Decoded decode(String source, byte[] data) throws ConfigDecodeException {
    return decode(source, data, null);
  }

  /**
   * Decodes a file's content with its values as another YAML reader read them ({@code read}:
   * vertx-config-yaml's document, or null for none): this decoder's own reading of {@code data}
   * gives the positions, the strict errors and the errors, and the scalar types where go-yaml's
   * differ from {@code read}'s ({@link ConfigDocument#withValues}).
   */
  public static Decoded decode(String source, byte[] data, JsonObject read) throws ConfigDecodeException {
    ConfigDocument parsed = ConfigDocument.parse(source, data);
    ConfigDocument doc = read == null ? parsed : parsed.withValues(read);
    if (!doc.root.isObject()) {
      throw new ConfigDecodeException(doc.at("") + "expected a mapping (a KubeProxyConfiguration object), got "
          + ConfigSchema.kindOf(doc.root));
    }
    checkTypeMeta(doc, (ObjectNode) doc.root);
    ConfigSchema.Bound bound = ConfigSchema.bind(doc);
    KubeProxyConfiguration config = bound.config();
    ConfigDefaults.apply(config);
    List<String> strict = new ArrayList<>(doc.duplicates);
    strict.addAll(bound.unknownFields());
    return new Decoded(config, strict);
  }

  /**
   * Sets the fields named by their dotted v1alpha1 paths, through the schema (how the command line's
   * flags reach the configuration).
   *
   * @throws IllegalArgumentException when a value does not have its field's type
   */
  public static void setFields(KubeProxyConfiguration c, java.util.Map<String, Object> valuesByPath) {
    ConfigFields.set(c, valuesByPath);
  }

  /** apimachinery's TypeMeta check: apiVersion and kind present and registered. */
  private static void checkTypeMeta(ConfigDocument doc, ObjectNode root) throws ConfigDecodeException {
    JsonNode apiVersion = root.get("apiVersion");
    JsonNode kind = root.get("kind");
    if (kind == null || !kind.isTextual() || kind.asText().isEmpty()) {
      throw new ConfigDecodeException(doc.at("") + "Object 'Kind' is missing; expected kind: "
          + KubeProxyConfiguration.KIND);
    }
    if (apiVersion == null || !apiVersion.isTextual() || apiVersion.asText().isEmpty()) {
      throw new ConfigDecodeException(doc.at("") + "Object 'apiVersion' is missing; expected apiVersion: "
          + KubeProxyConfiguration.API_VERSION);
    }
    if (!apiVersion.asText().equals(KubeProxyConfiguration.API_VERSION)
        || !kind.asText().equals(KubeProxyConfiguration.KIND)) {
      String where = doc.at(apiVersion.asText().equals(KubeProxyConfiguration.API_VERSION) ? "kind" : "apiVersion");
      throw new ConfigDecodeException(where + "no kind \"" + kind.asText() + "\" is registered for version \""
          + apiVersion.asText() + "\"; expected apiVersion: " + KubeProxyConfiguration.API_VERSION + ", kind: "
          + KubeProxyConfiguration.KIND);
    }
  }

  // ---- encoding (--write-config-to) ----

  /**
   * The completed configuration as v1alpha1 YAML, keys sorted, with upstream's reverse conversion
   * (pkg/proxy/apis/config/v1alpha1 conversion.go).
   */
  public static String encodeYaml(KubeProxyConfiguration c) {
    return ConfigSchema.yaml(toV1Alpha1(c));
  }

  /**
   * The v1alpha1 document of a completed configuration: upstream converts its internal object back
   * (pkg/proxy/apis/config/v1alpha1 conversion), so the single sync periods land only in the active
   * mode's section (the others show 0s), masqueradeAll in nftables or iptables, portRange is empty.
   */
  public static ObjectNode toV1Alpha1(KubeProxyConfiguration c) {
    ObjectNode doc = ConfigSchema.tree(c);
    String mode = c.mode == null ? "" : c.mode;
    ProxyMode active = ProxyMode.parse(mode).orElse(ProxyMode.IPTABLES);
    String sync = GoDuration.format(c.syncPeriod());
    String minSync = GoDuration.format(c.minSyncPeriod());
    String zero = GoDuration.format(Duration.ZERO);
    for (ProxyMode section : ProxyMode.values()) {
      ObjectNode s = (ObjectNode) doc.get(section.text());
      s.put("syncPeriod", section == active ? sync : zero);
      s.put("minSyncPeriod", section == active ? minSync : zero);
    }
    boolean nft = active == ProxyMode.NFTABLES;
    ((ObjectNode) doc.get("iptables")).put("masqueradeAll", !nft && c.masqueradeAll());
    ((ObjectNode) doc.get("nftables")).put("masqueradeAll", nft && c.masqueradeAll());
    doc.put("mode", mode);
    doc.put("portRange", "");
    return doc;
  }
}
