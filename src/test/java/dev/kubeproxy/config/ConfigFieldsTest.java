package dev.kubeproxy.config;

import dev.kubeproxy.gotext.GoDuration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kubeproxy.cli.FlagDef;
import dev.kubeproxy.cli.FlagValues;
import dev.kubeproxy.cli.KubeProxyFlags;
import dev.kubeproxy.testutil.tier.Unit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The command line's way to the configuration without Jackson ({@link ConfigFields}) gives what the
 * schema's Jackson binding gives: the same default texts and the same fields set, for every flag
 * that names a field.
 */
@Unit
class ConfigFieldsTest {
  /** A value of each flag type, as typed on a command line (not the defaults, so a set shows). */
  private static final Map<String, String> RAW = Map.ofEntries(
      Map.entry("STRING", "some-text"),
      Map.entry("BOOL", "true"),
      Map.entry("INT32", "7"),
      Map.entry("FLOAT32", "2.5"),
      Map.entry("DURATION", "3m7s"),
      Map.entry("IP", "10.1.2.3"),
      Map.entry("IPPORT", "10.1.2.3:99"),
      Map.entry("STRINGS", "10.0.0.0/8,192.168.0.0/16"),
      Map.entry("MAP_STRING_BOOL", "MultiCIDRServiceAllocator=true"),
      Map.entry("PROXY_MODE", "nftables"),
      Map.entry("LOCAL_MODE", "NodeCIDR"),
      Map.entry("LEVEL", "3"),
      Map.entry("QUANTITY", "1Mi"));

  private static List<FlagDef> fieldFlags() {
    List<FlagDef> out = new ArrayList<>();
    for (FlagDef def : KubeProxyFlags.ALL) {
      if (def.field() != null) {
        out.add(def);
      }
    }
    return out;
  }

  @Test
  void defaultTextsAreTheSchemaDocument() {
    JsonNode tree = ConfigSchema.tree(ConfigDefaults.defaulted());
    int checked = 0;
    for (FlagDef def : fieldFlags()) {
      assertEquals(jacksonText(tree, def.field()), ConfigDefaults.text(def.field()), def.field());
      checked++;
    }
    assertEquals(42, checked);
    assertEquals("24h0m0s", ConfigDefaults.text("conntrack.tcpEstablishedTimeout"));
    assertEquals("5", ConfigDefaults.text("clientConnection.qps"));
    assertEquals("[]", ConfigDefaults.text("nodePortAddresses"));
    assertThrows(IllegalArgumentException.class, () -> ConfigDefaults.text("iptables.noSuchField"));
  }

  @Test
  void flagValuesLandAsTheSchemaUpdateSetsThem() {
    for (FlagDef def : fieldFlags()) {
      String raw = RAW.get(def.type().name());
      assertTrue(raw != null, "no sample value for " + def.type());
      if (def.isBool() && raw.equals(def.defaultText())) {
        raw = "false";
      }
      Object value = FlagValues.convert(def, raw);
      KubeProxyConfiguration viaFields = ConfigDefaults.defaulted();
      ConfigFields.set(viaFields, Map.of(def.field(), value));
      assertEquals(ConfigSchema.json(throughTheSchema(def.field(), value)), ConfigSchema.json(viaFields),
          def.name() + " -> " + def.field());
      assertTrue(!ConfigSchema.json(viaFields).equals(ConfigSchema.json(ConfigDefaults.defaulted())),
          def.name() + " changed nothing");
    }
  }

  @Test
  void featureGatesMergeIntoTheMap() {
    KubeProxyConfiguration c = ConfigDefaults.defaulted();
    c.featureGates.put("A", false);
    ConfigFields.set(c, Map.of("featureGates", Map.of("B", true)));
    assertEquals(Map.of("A", false, "B", true), c.featureGates);
  }

  @Test
  void unknownPathsAndWrongTypesAreRefused() {
    KubeProxyConfiguration c = ConfigDefaults.defaulted();
    assertThrows(IllegalArgumentException.class, () -> ConfigFields.set(c, Map.of("iptables.noSuchField", 1)));
    assertThrows(IllegalArgumentException.class, () -> ConfigFields.set(c, Map.of("noSuch.field", 1)));
    assertThrows(IllegalArgumentException.class, () -> ConfigFields.set(c, Map.of("clientConnection.burst", "10")));
    assertThrows(IllegalArgumentException.class, () -> ConfigFields.set(c, Map.of("apiVersion.x", "10")));
  }

  /**
   * The defaulted configuration with one field set through the schema's Jackson binding: its v1alpha1
   * document, the value written at the path as a file would hold it, decoded again.
   */
  private static KubeProxyConfiguration throughTheSchema(String path, Object value) {
    ObjectNode doc = ConfigSchema.tree(ConfigDefaults.defaulted());
    String[] names = path.split("\\.");
    ObjectNode parent = (ObjectNode) walk(doc, names, names.length - 1);
    Object wire = value instanceof Duration d ? GoDuration.format(d)
        : value instanceof Float f ? GoValues.float32Number(f) : value;
    if (value instanceof Map<?, ?> m) {
      ObjectNode merged = parent.has(names[names.length - 1]) ? (ObjectNode) parent.get(names[names.length - 1])
          : parent.putObject(names[names.length - 1]);
      merged.setAll((ObjectNode) JSON.valueToTree(m));
      wire = merged;
    }
    parent.set(names[names.length - 1], JSON.valueToTree(wire));
    return ConfigSchema.fromJson(doc.toString());
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The node at the first {@code depth} names of a dotted path (a missing node where there is none). */
  private static JsonNode walk(JsonNode tree, String[] names, int depth) {
    JsonNode n = tree;
    for (int i = 0; i < depth; i++) {
      n = n.path(names[i]);
    }
    return n;
  }

  /** The default text as it was read from the schema's JSON tree. */
  private static String jacksonText(JsonNode tree, String path) {
    String[] names = path.split("\\.");
    JsonNode n = walk(tree, names, names.length);
    if (n.isMissingNode() || n.isNull()) {
      Class<?> type = ConfigSchema.fieldClass(path);
      return type == boolean.class ? "false" : List.class.isAssignableFrom(type) ? "[]" : "";
    }
    if (n.isArray()) {
      List<String> items = new ArrayList<>();
      n.forEach(item -> items.add(item.asText()));
      return "[" + String.join(",", items) + "]";
    }
    return n.isObject() ? "" : n.asText();
  }
}
