package dev.kubeproxy.config;

import io.vertx.config.spi.ConfigProcessor;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * vertx-config's format for a KubeProxyConfiguration file ({@code format: kube-proxy-configuration}):
 * decodes it as upstream does ({@link ConfigCodec#decode}: go-yaml or encoding/json with positions,
 * duplicate and unknown fields, v1alpha1 defaults) and gives the retriever the defaulted object as
 * the schema's JSON, with the strict-decoding errors beside it:
 * {@code {"configuration": {...v1alpha1...}, "strictErrors": ["unknown field \"x\"", ...]}}.
 *
 * <p>vertx-config-yaml's {@code yaml} format is not used: SnakeYAML reads YAML 1.1, so dates
 * become timestamps, duplicate keys pass silently, more than 50 aliases are refused, and its errors
 * carry no file position, none of which is how kube-proxy (sigs.k8s.io/yaml over go-yaml) reads the
 * file. A malformed file fails the retrieval with the {@link ConfigDecodeException} itself.
 */
public final class ConfigFileFormat implements ConfigProcessor {
  public static final String NAME = "kube-proxy-configuration";

  private static final String CONFIGURATION = "configuration";
  private static final String STRICT_ERRORS = "strictErrors";

  @Override
  public String name() {
    return NAME;
  }

  /** Decodes on a worker: a file may be up to {@link ConfigFileReader#MAX_BYTES} of YAML. */
  @Override
  public Future<JsonObject> process(Vertx vertx, JsonObject storeConfiguration, Buffer input) {
    String source = storeConfiguration.getString("path", "");
    return vertx.executeBlocking(() -> encode(ConfigCodec.decode(source, input.getBytes())), false);
  }

  static JsonObject encode(ConfigCodec.Decoded decoded) {
    return new JsonObject()
        .put(CONFIGURATION, new JsonObject(ConfigSchema.json(decoded.config())))
        .put(STRICT_ERRORS, new JsonArray(decoded.strictErrors()));
  }

  /** The retriever's JSON back as the decoded configuration. */
  static ConfigCodec.Decoded decoded(JsonObject json) {
    KubeProxyConfiguration config = ConfigSchema.fromJson(json.getJsonObject(CONFIGURATION).encode());
    List<String> strict = json.getJsonArray(STRICT_ERRORS).stream().map(String::valueOf).toList();
    return new ConfigCodec.Decoded(config, strict);
  }
}
