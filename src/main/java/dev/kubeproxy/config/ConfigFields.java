package dev.kubeproxy.config;

import dev.kubeproxy.gotext.GoDuration;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The configuration's fields by their dotted v1alpha1 path ("clientConnection.kubeconfig"), read
 * and set directly on {@link KubeProxyConfiguration}'s public fields (the JSON key is the field's
 * name). What the command line needs without a --config file: setting the flags' fields and
 * printing their defaults. It needs none of {@link ConfigSchema}'s Jackson mappers, whose
 * building and bean introspection were a tenth of the agent's CPU before its first sync.
 */
final class ConfigFields {
  private ConfigFields() {}

  /** The field at this path, or null when the schema has none. */
  static Field field(String path) {
    Class<?> type = KubeProxyConfiguration.class;
    Field f = null;
    for (String name : path.split("\\.")) {
      if (f != null) {
        type = f.getType();
      }
      f = publicField(type, name);
      if (f == null) {
        return null;
      }
    }
    return f;
  }

  private static Field publicField(Class<?> type, String name) {
    try {
      Field f = type.getField(name);
      return Modifier.isStatic(f.getModifiers()) ? null : f;
    } catch (NoSuchFieldException e) {
      return null;
    }
  }

  /** The value at this path (null for an unset pointer field). */
  static Object get(KubeProxyConfiguration c, String path) {
    Object owner = c;
    for (String name : path.split("\\.")) {
      if (owner == null) {
        return null;
      }
      Field f = publicField(owner.getClass(), name);
      if (f == null) {
        throw new IllegalArgumentException("not in the configuration schema: " + path);
      }
      owner = read(f, owner);
    }
    return owner;
  }

  /**
   * Sets the fields named by their paths to the flags' values (already parsed and checked by the
   * flag parser): a map is merged into the field's map, as a flag adds feature gates; a list
   * replaces the field's.
   *
   * @throws IllegalArgumentException when a path names no field, or a value does not have its field's type
   */
  static void set(KubeProxyConfiguration c, Map<String, Object> valuesByPath) {
    List<String> unknown = new ArrayList<>();
    valuesByPath.forEach((path, value) -> {
      String[] names = path.split("\\.");
      Object owner = c;
      for (int i = 0; i < names.length - 1 && owner != null; i++) {
        Field f = publicField(owner.getClass(), names[i]);
        owner = f == null ? null : read(f, owner);
      }
      Field f = owner == null ? null : publicField(owner.getClass(), names[names.length - 1]);
      if (f == null) {
        unknown.add("unknown field \"" + path + "\"");
        return;
      }
      write(f, owner, path, value);
    });
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("not in the configuration schema: " + String.join(", ", unknown));
    }
  }

  @SuppressWarnings("unchecked")
  private static void write(Field f, Object owner, String path, Object value) {
    if (value == null) {
      return; // null leaves a field as it is, as in a file
    }
    Class<?> type = f.getType();
    Object v = value;
    if (Map.class.isAssignableFrom(type) && value instanceof Map<?, ?> m) {
      Map<Object, Object> existing = (Map<Object, Object>) read(f, owner);
      Map<Object, Object> merged = existing == null ? new TreeMap<>() : existing;
      merged.putAll(m);
      v = merged;
    } else if (List.class.isAssignableFrom(type) && value instanceof List<?> l) {
      v = new ArrayList<>(l);
    } else if (!box(type).isInstance(value)) {
      throw new IllegalArgumentException("a value does not fit the configuration schema: " + path + " is a "
          + type.getSimpleName() + ", not a " + value.getClass().getSimpleName());
    }
    try {
      f.set(owner, v);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot set " + path, e);
    }
  }

  private static Object read(Field f, Object owner) {
    try {
      return f.get(owner);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot read " + f.getName(), e);
    }
  }

  private static Class<?> box(Class<?> type) {
    if (!type.isPrimitive()) {
      return type;
    }
    if (type == int.class) {
      return Integer.class;
    }
    if (type == boolean.class) {
      return Boolean.class;
    }
    if (type == float.class) {
      return Float.class;
    }
    if (type == long.class) {
      return Long.class;
    }
    return type == double.class ? Double.class : type;
  }

  /**
   * A value as pflag prints a default, the way the v1alpha1 document writes it: a Go duration, a
   * float32 as encoding/json prints it, a list as "[a,b]", a map or an object as "", an unset
   * pointer as its zero ("" or "[]").
   */
  static String text(Field f, Object value) {
    if (value == null) {
      return List.class.isAssignableFrom(f.getType()) ? "[]" : f.getType() == boolean.class ? "false" : "";
    }
    if (value instanceof Duration d) {
      return GoDuration.format(d);
    }
    if (value instanceof Float x) {
      return String.valueOf(GoValues.float32Number(x));
    }
    if (value instanceof List<?> l) {
      List<String> items = new ArrayList<>();
      l.forEach(item -> items.add(String.valueOf(item)));
      return "[" + String.join(",", items) + "]";
    }
    if (value instanceof String || value instanceof Number || value instanceof Boolean) {
      return String.valueOf(value);
    }
    return ""; // a map or a nested object
  }
}
