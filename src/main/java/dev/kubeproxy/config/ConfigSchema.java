package dev.kubeproxy.config;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The v1alpha1 schema's binding, declared once: {@link KubeProxyConfiguration}'s fields and
 * annotations, read and written by Jackson with Go's rules. Decoding is encoding/json's: field names
 * are case-sensitive, a value of the wrong JSON type is an error (no coercion of "10" to 10 or of 1
 * to "1"), null leaves a field as it is, and unknown fields are collected, in document order, as
 * strict-decoding errors (apimachinery's strict decoder: {@code unknown field "iptables.foo"})
 * while the lenient result drops them. Encoding is sigs.k8s.io/yaml's: keys sorted, Go durations.
 */
final class ConfigSchema {
  private ConfigSchema() {}

  /** The attribute holding the decode's list of unknown fields. */
  private static final String UNKNOWN = "kubeproxy.unknownFields";

  private static final JsonMapper MAPPER = JsonMapper.builder()
      .addModule(new SimpleModule("go-duration")
          .addDeserializer(Duration.class, new GoValues.DurationDeserializer())
          .addSerializer(Duration.class, new GoValues.DurationSerializer()))
      .addHandler(new UnknownFields())
      .defaultSetterInfo(JsonSetter.Value.forValueNulls(Nulls.SKIP))
      .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
      .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
      .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
      .withCoercionConfigDefaults(c -> {
        for (CoercionInputShape shape : CoercionInputShape.values()) {
          c.setCoercion(shape, CoercionAction.Fail);
        }
      })
      .withCoercionConfig(LogicalType.Float, c -> c.setCoercion(CoercionInputShape.Integer, CoercionAction.TryConvert))
      .build();

  private static final YAMLMapper YAML = YAMLMapper.builder()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
      .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
      .disable(YAMLGenerator.Feature.SPLIT_LINES)
      .build();

  /** A decoded object and the unknown fields that strict decoding rejects. */
  record Bound(KubeProxyConfiguration config, List<String> unknownFields) {}

  /**
   * Binds a parsed document to the schema (no defaults applied).
   *
   * @throws ConfigDecodeException for a value of the wrong type, with the file position; like
   *     encoding/json, the first such value is reported
   */
  static Bound bind(ConfigDocument doc) throws ConfigDecodeException {
    List<String> unknown = new ArrayList<>();
    try {
      KubeProxyConfiguration c = MAPPER.readerFor(KubeProxyConfiguration.class)
          .withAttribute(UNKNOWN, unknown)
          .readValue(doc.root);
      return new Bound(c, unknown);
    } catch (JsonMappingException e) {
      throw new ConfigDecodeException(typeError(doc, e));
    } catch (IOException e) {
      throw new ConfigDecodeException(doc.source + ": " + e.getMessage());
    }
  }

  /** The configuration as a v1alpha1 JSON tree, keys sorted. */
  static ObjectNode tree(KubeProxyConfiguration c) {
    return MAPPER.valueToTree(c);
  }

  /** The configuration as v1alpha1 JSON text. */
  static String json(KubeProxyConfiguration c) {
    try {
      return MAPPER.writeValueAsString(c);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode the configuration", e);
    }
  }

  /** A configuration back from the JSON text of {@link #json}, which the schema wrote and so accepts. */
  static KubeProxyConfiguration fromJson(String json) {
    List<String> unknown = new ArrayList<>();
    try {
      KubeProxyConfiguration c = MAPPER.readerFor(KubeProxyConfiguration.class).withAttribute(UNKNOWN, unknown)
          .readValue(json);
      if (!unknown.isEmpty()) {
        throw new IllegalStateException("not in the configuration schema: " + String.join(", ", unknown));
      }
      return c;
    } catch (IOException e) {
      throw new IllegalStateException("the configuration's own JSON does not decode: " + e.getMessage(), e);
    }
  }

  /** A v1alpha1 tree as sigs.k8s.io/yaml writes it. */
  static String yaml(JsonNode tree) {
    try {
      return YAML.writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode the configuration", e);
    }
  }

  // ---- errors in Go's words ----

  private static String typeError(ConfigDocument doc, JsonMappingException e) {
    List<JsonMappingException.Reference> refs = e.getPath();
    String path = path(refs, true);
    String at = doc.at(path);
    if (e instanceof GoValues.Mismatch m && m.goType == null) {
      return at + "field " + path + ": " + m.getOriginalMessage();
    }
    String goType = e instanceof GoValues.Mismatch m ? m.goType : goType(refs);
    return at + "json: cannot unmarshal " + kindOf(nodeAt(doc.root, refs)) + " into Go struct field "
        + KubeProxyConfiguration.KIND + "." + path(refs, false) + " of type " + goType;
  }

  private static String path(List<JsonMappingException.Reference> refs, boolean withIndexes) {
    StringBuilder sb = new StringBuilder();
    for (JsonMappingException.Reference r : refs) {
      if (r.getFieldName() != null) {
        if (!sb.isEmpty()) {
          sb.append('.');
        }
        sb.append(r.getFieldName());
      } else if (withIndexes && r.getIndex() >= 0) {
        sb.append('[').append(r.getIndex()).append(']');
      }
    }
    return sb.toString();
  }

  private static JsonNode nodeAt(JsonNode root, List<JsonMappingException.Reference> refs) {
    JsonNode n = root;
    for (JsonMappingException.Reference r : refs) {
      if (n == null) {
        return null;
      }
      n = r.getFieldName() != null ? n.get(r.getFieldName()) : n.get(r.getIndex());
    }
    return n;
  }

  /** The JSON kind of a value in Go's words ("string", "number", "bool", "array", "object", "null"). */
  static String kindOf(JsonNode n) {
    if (n == null || n.isNull() || n.isMissingNode()) {
      return "null";
    }
    if (n.isTextual()) {
      return "string";
    }
    if (n.isNumber()) {
      return "number";
    }
    if (n.isBoolean()) {
      return "bool";
    }
    return n.isArray() ? "array" : "object";
  }

  /** The Java class of the field at a dotted v1alpha1 path, null when the schema has no such field. */
  static Class<?> fieldClass(String path) {
    JavaType t = typeAt(path);
    return t == null ? null : t.getRawClass();
  }

  private static JavaType typeAt(String path) {
    JavaType type = MAPPER.constructType(KubeProxyConfiguration.class);
    for (String name : path.split("\\.")) {
      JavaType next = null;
      for (BeanPropertyDefinition p : MAPPER.getDeserializationConfig().introspect(type).findProperties()) {
        if (p.getName().equals(name)) {
          next = p.getPrimaryType();
        }
      }
      if (next == null) {
        return null;
      }
      type = next;
    }
    return type;
  }

  /** The Go type of the field at this path, read from the schema. */
  private static String goType(List<JsonMappingException.Reference> refs) {
    JavaType type = MAPPER.constructType(KubeProxyConfiguration.class);
    for (JsonMappingException.Reference r : refs) {
      if (type.isContainerType()) {
        type = type.getContentType();
        continue;
      }
      BeanDescription bean = MAPPER.getDeserializationConfig().introspect(type);
      JavaType next = null;
      for (BeanPropertyDefinition p : bean.findProperties()) {
        if (p.getName().equals(r.getFieldName())) {
          next = p.getPrimaryType();
        }
      }
      if (next == null) {
        break;
      }
      type = next;
    }
    return goName(type);
  }

  private static String goName(JavaType t) {
    Class<?> c = t.getRawClass();
    if (c == int.class || c == Integer.class) {
      return "int32";
    }
    if (c == float.class || c == Float.class) {
      return "float32";
    }
    if (c == boolean.class || c == Boolean.class) {
      return "bool";
    }
    if (c == String.class) {
      return "string";
    }
    if (c == Duration.class) {
      return GoValues.DURATION_TYPE;
    }
    if (List.class.isAssignableFrom(c)) {
      return "[]" + goName(t.getContentType());
    }
    if (Map.class.isAssignableFrom(c)) {
      return "map[string]" + goName(t.getContentType());
    }
    return c.getSimpleName();
  }

  /** Collects unknown fields instead of failing, with their dotted path, and skips their values. */
  private static final class UnknownFields extends DeserializationProblemHandler {
    @Override
    @SuppressWarnings("unchecked")
    public boolean handleUnknownProperty(DeserializationContext ctxt, JsonParser p, JsonDeserializer<?> deserializer,
        Object beanOrClass, String propertyName) throws IOException {
      List<String> sink = (List<String>) ctxt.getAttribute(UNKNOWN);
      JsonStreamContext where = p.getParsingContext();
      if (p.currentToken() == JsonToken.START_OBJECT || p.currentToken() == JsonToken.START_ARRAY) {
        where = where.getParent();
      }
      sink.add("unknown field \"" + path(where) + "\"");
      p.skipChildren();
      return true;
    }

    private static String path(JsonStreamContext ctx) {
      List<JsonStreamContext> chain = new ArrayList<>();
      for (JsonStreamContext c = ctx; c != null && !c.inRoot(); c = c.getParent()) {
        chain.add(0, c);
      }
      StringBuilder sb = new StringBuilder();
      for (JsonStreamContext c : chain) {
        if (c.inObject()) {
          sb.append(sb.isEmpty() ? "" : ".").append(c.getCurrentName());
        } else {
          sb.append('[').append(c.getCurrentIndex()).append(']');
        }
      }
      return sb.toString();
    }
  }
}
