package dev.kubeproxy.cluster;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.annotations.SerializedName;
import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Drops the JSON fields a client-java model does not know, at every depth, before the model
 * decodes it. client-java's generated models refuse any unknown field ("The field `x` in the JSON
 * string is not defined in the `V1Service` properties"), so an API server newer than the client
 * (a field added to Service, EndpointSlice or Node after client-java 24) would make every such
 * object undecodable. Upstream's Go decoder ignores fields it does not know; so does this.
 */
final class UnknownFields {
  /** What one model class declares: its JSON field names, and the model type behind each. */
  private record Schema(Set<String> known, Map<String, Class<?>> children) {}

  private static final ClassValue<Schema> SCHEMAS = new ClassValue<>() {
    @Override
    protected Schema computeValue(Class<?> type) {
      return schemaOf(type);
    }
  };

  private UnknownFields() {}

  /** Removes, in place, every field of json (an object of the given model type) that the model does not declare. */
  static void prune(JsonElement json, Class<?> type) {
    Schema schema = type == null ? null : SCHEMAS.get(type);
    if (schema == null || json == null) {
      return;
    }
    if (json.isJsonArray()) {
      json.getAsJsonArray().forEach(e -> prune(e, type));
      return;
    }
    if (!json.isJsonObject()) {
      return;
    }
    JsonObject object = json.getAsJsonObject();
    object.keySet().removeIf(name -> !schema.known().contains(name));
    schema.children().forEach((name, child) -> prune(object.get(name), child));
  }

  /** null for what is not a generated model (strings, numbers, maps, IntOrString, Quantity, …). */
  private static Schema schemaOf(Class<?> type) {
    Set<String> known;
    try {
      Object fields = type.getField("openapiFields").get(null);
      if (!(fields instanceof Set<?> names)) {
        return null;
      }
      @SuppressWarnings("unchecked")
      Set<String> strings = (Set<String>) names;
      known = Set.copyOf(strings);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
    Map<String, Class<?>> children = new HashMap<>();
    for (Field f : type.getDeclaredFields()) {
      SerializedName name = f.getAnnotation(SerializedName.class);
      Class<?> child = name == null ? null : elementType(f);
      if (child != null && child.getName().startsWith("io.kubernetes.client.openapi.models.")) {
        children.put(name.value(), child);
      }
    }
    return new Schema(known, Map.copyOf(children));
  }

  /** The field's class, or the element class of a List field. */
  private static Class<?> elementType(Field f) {
    if (List.class.isAssignableFrom(f.getType()) && f.getGenericType() instanceof ParameterizedType p) {
      Type element = p.getActualTypeArguments()[0];
      return element instanceof Class<?> c ? c : null;
    }
    return f.getType();
  }
}
