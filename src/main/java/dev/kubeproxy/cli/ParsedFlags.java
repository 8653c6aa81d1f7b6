package dev.kubeproxy.cli;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The result of parsing the command line: typed values, which flags were set explicitly
 * (precedence needs it), and the deprecation warnings to print.
 */
public final class ParsedFlags {
  private final Map<String, Object> values = new LinkedHashMap<>();
  private final Map<String, String> rawValues = new LinkedHashMap<>();
  private final Set<String> explicit = new LinkedHashSet<>();
  private final List<String> warnings = new ArrayList<>();

  ParsedFlags() {}

  /** Records one occurrence; list and map flags accumulate, the others keep the last value. */
  @SuppressWarnings("unchecked")
  void set(FlagDef def, String raw, Object value) {
    String name = def.name();
    switch (def.type()) {
      case STRINGS, VMODULE -> {
        List<Object> list = (List<Object>) values.computeIfAbsent(name, k -> new ArrayList<>());
        list.addAll((List<Object>) value);
        rawValues.merge(name, raw, (a, b) -> a.isEmpty() ? b : a + "," + b);
      }
      case MAP_STRING_BOOL -> {
        Map<String, Boolean> map = (Map<String, Boolean>) values.computeIfAbsent(name, k -> new TreeMap<>());
        map.putAll((Map<String, Boolean>) value);
        rawValues.merge(name, raw, (a, b) -> a.isEmpty() ? b : a + "," + b);
      }
      default -> {
        values.put(name, value);
        rawValues.put(name, raw);
      }
    }
    explicit.add(name);
  }

  void warn(String warning) {
    warnings.add(warning);
  }

  public boolean isSet(String name) {
    return explicit.contains(name);
  }

  /** The explicit value, or the flag's default. */
  @SuppressWarnings("unchecked")
  public <T> T get(String name) {
    if (values.containsKey(name)) {
      return (T) values.get(name);
    }
    FlagDef def = KubeProxyFlags.get(name);
    return (T) defaultValue(def);
  }

  public String getString(String name) {
    return get(name);
  }

  public boolean getBool(String name) {
    Object v = get(name);
    return Boolean.TRUE.equals(v);
  }

  private static Object defaultValue(FlagDef def) {
    return switch (def.type()) {
      case STRINGS, VMODULE -> List.of();
      case MAP_STRING_BOOL -> Map.of();
      case IP, IPPORT -> def.defaultText();
      default -> FlagValues.convert(def, def.defaultText());
    };
  }

  /** Deprecated-flag warnings, in the order the flags were given. */
  public List<String> warnings() {
    return Collections.unmodifiableList(warnings);
  }

  /** The value text for the -v=1 flag dump: the given text or the default. */
  public String displayValue(FlagDef def) {
    String raw = rawValues.get(def.name());
    if (raw != null) {
      return raw;
    }
    return def.defaultText();
  }
}
