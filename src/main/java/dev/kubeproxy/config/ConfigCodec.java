package dev.kubeproxy.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Reads and writes KubeProxyConfiguration files (config.md §1): YAML or JSON, strict decoding
 * (unknown and duplicate fields are reported) with the caller falling back to the leniently decoded
 * object, v1alpha1 defaulting, and the v1alpha1 YAML output of --write-config-to.
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

  private static final Pattern QUANTITY =
      Pattern.compile("^[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+|[KMGTPE]i|[numkMGTPE])?$");

  /**
   * Decodes a file's content.
   *
   * @param source the file name, used in error messages
   * @throws ConfigDecodeException for malformed input, a wrong apiVersion/kind or a wrong value type,
   *     with the file, line and column
   */
  public static Decoded decode(String source, byte[] data) throws ConfigDecodeException {
    ConfigDocument tree = ConfigDocument.parse(source, data);
    JsonNode root = tree.root;
    if (!root.isObject()) {
      throw new ConfigDecodeException(tree.at("") + "expected a mapping (a KubeProxyConfiguration object), got "
          + kindOf(root));
    }
    checkTypeMeta(tree, (ObjectNode) root);

    KubeProxyConfiguration config = new KubeProxyConfiguration();
    Binder binder = new Binder(tree);
    binder.bindObject(config, (ObjectNode) root, "");
    if (!binder.typeErrors.isEmpty()) {
      throw new ConfigDecodeException(String.join(", ", binder.typeErrors));
    }
    ConfigDefaults.apply(config);
    List<String> strict = new ArrayList<>(tree.duplicates);
    strict.addAll(binder.unknown);
    return new Decoded(config, strict);
  }

  private static void checkTypeMeta(ConfigDocument tree, ObjectNode root) throws ConfigDecodeException {
    JsonNode apiVersion = root.get("apiVersion");
    JsonNode kind = root.get("kind");
    if (kind == null || !kind.isTextual() || kind.asText().isEmpty()) {
      throw new ConfigDecodeException(tree.at("") + "Object 'Kind' is missing; expected kind: "
          + KubeProxyConfiguration.KIND);
    }
    if (apiVersion == null || !apiVersion.isTextual() || apiVersion.asText().isEmpty()) {
      throw new ConfigDecodeException(tree.at("") + "Object 'apiVersion' is missing; expected apiVersion: "
          + KubeProxyConfiguration.API_VERSION);
    }
    if (!apiVersion.asText().equals(KubeProxyConfiguration.API_VERSION)
        || !kind.asText().equals(KubeProxyConfiguration.KIND)) {
      String where = tree.at(apiVersion.asText().equals(KubeProxyConfiguration.API_VERSION) ? "kind" : "apiVersion");
      throw new ConfigDecodeException(where + "no kind \"" + kind.asText() + "\" is registered for version \""
          + apiVersion.asText() + "\"; expected apiVersion: " + KubeProxyConfiguration.API_VERSION + ", kind: "
          + KubeProxyConfiguration.KIND);
    }
  }

  private static String kindOf(JsonNode n) {
    if (n.isTextual()) {
      return "string";
    }
    if (n.isNumber()) {
      return "number";
    }
    if (n.isBoolean()) {
      return "bool";
    }
    if (n.isArray()) {
      return "array";
    }
    if (n.isObject()) {
      return "object";
    }
    return "null";
  }

  /**
   * Sets the model's public fields from the tree, field name = JSON key (case-sensitive).
   * Unknown keys are collected for strict decoding; values of the wrong type are fatal.
   */
  private static final class Binder {
    final ConfigDocument tree;
    final List<String> unknown = new ArrayList<>();
    final List<String> typeErrors = new ArrayList<>();

    Binder(ConfigDocument tree) {
      this.tree = tree;
    }

    void bindObject(Object target, ObjectNode node, String path) {
      Map<String, Field> fields = fieldsOf(target.getClass());
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        String child = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
        Field f = fields.get(e.getKey());
        if (f == null) {
          unknown.add("unknown field \"" + child + "\"");
          continue;
        }
        try {
          bindField(target, f, e.getValue(), child);
        } catch (IllegalAccessException ex) {
          throw new IllegalStateException(ex);
        }
      }
    }

    private void bindField(Object target, Field f, JsonNode v, String path) throws IllegalAccessException {
      Class<?> type = f.getType();
      if (v.isNull()) {
        // Go: null leaves a value field alone and makes a pointer or slice nil (= default)
        if ((type == Integer.class || type == Boolean.class || type == List.class)
            || (type == Duration.class && isPointerDuration(path))) {
          f.set(target, null);
        }
        return;
      }
      if (type == String.class) {
        if (v.isTextual()) {
          f.set(target, v.asText());
        } else if (path.endsWith("infoBufferSize") && v.isNumber()) {
          f.set(target, v.asText());
        } else {
          mismatch(v, path, "string");
          return;
        }
        if (path.endsWith("infoBufferSize") && !QUANTITY.matcher((String) f.get(target)).matches()) {
          typeErrors.add(tree.at(path) + "field " + path + ": quantities must match the regular expression "
              + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
        }
      } else if (type == int.class || type == Integer.class) {
        boolean unsigned = path.endsWith("verbosity");
        if (v.isIntegralNumber() && v.canConvertToInt() && (!unsigned || v.intValue() >= 0)) {
          f.set(target, v.intValue());
        } else {
          mismatch(v, path, unsigned ? "uint32" : "int32");
        }
      } else if (type == float.class) {
        if (v.isNumber()) {
          f.setFloat(target, v.floatValue());
        } else {
          mismatch(v, path, "float32");
        }
      } else if (type == boolean.class || type == Boolean.class) {
        if (v.isBoolean()) {
          f.set(target, v.booleanValue());
        } else {
          mismatch(v, path, "bool");
        }
      } else if (type == Duration.class) {
        if (v.isTextual()) {
          try {
            f.set(target, GoDuration.parse(v.asText()));
          } catch (IllegalArgumentException e) {
            typeErrors.add(tree.at(path) + "field " + path + ": " + e.getMessage());
          }
        } else if (v.isIntegralNumber() && path.equals("logging.flushFrequency") && v.canConvertToLong()) {
          f.set(target, Duration.ofNanos(v.longValue()));
        } else {
          mismatch(v, path, "duration (a string such as \"30s\")");
        }
      } else if (type == List.class) {
        Class<?> element = elementType(f);
        if (!v.isArray()) {
          mismatch(v, path, element == String.class ? "[]string" : "[]" + element.getSimpleName());
          return;
        }
        List<Object> list = new ArrayList<>();
        int i = 0;
        for (JsonNode item : v) {
          String itemPath = path + "[" + i++ + "]";
          if (element == String.class) {
            if (item.isTextual()) {
              list.add(item.asText());
            } else {
              mismatch(item, itemPath, "string");
            }
          } else if (item.isObject()) {
            Object o = newInstance(element);
            bindObject(o, (ObjectNode) item, itemPath);
            list.add(o);
          } else {
            mismatch(item, itemPath, element.getSimpleName());
          }
        }
        f.set(target, list);
      } else if (type == Map.class) {
        if (!v.isObject()) {
          mismatch(v, path, "map[string]bool");
          return;
        }
        Map<String, Boolean> map = new TreeMap<>();
        for (Map.Entry<String, JsonNode> e : v.properties()) {
          if (e.getValue().isBoolean()) {
            map.put(e.getKey(), e.getValue().booleanValue());
          } else {
            mismatch(e.getValue(), path + "." + e.getKey(), "bool");
          }
        }
        f.set(target, map);
      } else {
        if (!v.isObject()) {
          mismatch(v, path, type.getSimpleName());
          return;
        }
        Object nested = f.get(target);
        if (nested == null) {
          nested = newInstance(type);
          f.set(target, nested);
        }
        bindObject(nested, (ObjectNode) v, path);
      }
    }

    private static boolean isPointerDuration(String path) {
      return path.equals("conntrack.tcpEstablishedTimeout") || path.equals("conntrack.tcpCloseWaitTimeout");
    }

    private void mismatch(JsonNode v, String path, String goType) {
      typeErrors.add(tree.at(path) + "json: cannot unmarshal " + kindOf(v) + " into Go struct field "
          + KubeProxyConfiguration.KIND + "." + path.replaceAll("\\[\\d+]", "") + " of type " + goType);
    }
  }

  private static Object newInstance(Class<?> type) {
    try {
      return type.getConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Class<?> elementType(Field f) {
    return (Class<?>) ((ParameterizedType) f.getGenericType()).getActualTypeArguments()[0];
  }

  private static Map<String, Field> fieldsOf(Class<?> type) {
    Map<String, Field> m = new LinkedHashMap<>();
    for (Field f : type.getFields()) {
      if (!Modifier.isStatic(f.getModifiers())) {
        m.put(f.getName(), f);
      }
    }
    return m;
  }

  // ---- encoding (--write-config-to) ----

  /**
   * The completed configuration as v1alpha1 YAML, keys sorted, with upstream's reverse conversion
   * (config.md §1.5): sync periods only in the active mode's section, masqueradeAll in nftables or
   * iptables, portRange always empty.
   */
  public static String encodeYaml(KubeProxyConfiguration c) {
    try {
      YAMLMapper yaml = YAMLMapper.builder()
          .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
          .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
          .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
          .disable(YAMLGenerator.Feature.SPLIT_LINES)
          .build();
      return yaml.writeValueAsString(toV1Alpha1(c));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode the configuration", e);
    }
  }

  /** The v1alpha1 document as sorted maps (used for YAML output). */
  public static Map<String, Object> toV1Alpha1(KubeProxyConfiguration c) {
    String mode = c.mode == null ? "" : c.mode;
    Duration sync = c.syncPeriod();
    Duration minSync = c.minSyncPeriod();
    boolean masqAll = c.masqueradeAll();
    Map<String, Object> m = new TreeMap<>();
    m.put("apiVersion", KubeProxyConfiguration.API_VERSION);
    m.put("kind", KubeProxyConfiguration.KIND);
    if (c.featureGates != null && !c.featureGates.isEmpty()) {
      m.put("featureGates", new TreeMap<>(c.featureGates));
    }
    Map<String, Object> cc = new TreeMap<>();
    cc.put("kubeconfig", c.clientConnection.kubeconfig);
    cc.put("acceptContentTypes", c.clientConnection.acceptContentTypes);
    cc.put("contentType", c.clientConnection.contentType);
    cc.put("qps", qps(c.clientConnection.qps));
    cc.put("burst", c.clientConnection.burst);
    m.put("clientConnection", cc);
    m.put("logging", logging(c.logging));
    m.put("hostnameOverride", c.hostnameOverride);
    m.put("bindAddress", c.bindAddress);
    m.put("healthzBindAddress", c.healthzBindAddress);
    m.put("metricsBindAddress", c.metricsBindAddress);
    m.put("bindAddressHardFail", c.bindAddressHardFail);
    m.put("enableProfiling", c.enableProfiling);
    m.put("showHiddenMetricsForVersion", c.showHiddenMetricsForVersion);
    m.put("mode", mode);

    boolean ipvs = mode.equals("ipvs");
    boolean nft = mode.equals("nftables");
    Map<String, Object> ipt = new TreeMap<>();
    ipt.put("masqueradeBit", c.iptables.masqueradeBit);
    ipt.put("masqueradeAll", !nft && masqAll);
    ipt.put("localhostNodePorts", c.iptables.localhostNodePorts);
    ipt.put("syncPeriod", GoDuration.format(!ipvs && !nft ? sync : Duration.ZERO));
    ipt.put("minSyncPeriod", GoDuration.format(!ipvs && !nft ? minSync : Duration.ZERO));
    m.put("iptables", ipt);

    Map<String, Object> ipvsMap = new TreeMap<>();
    ipvsMap.put("syncPeriod", GoDuration.format(ipvs ? sync : Duration.ZERO));
    ipvsMap.put("minSyncPeriod", GoDuration.format(ipvs ? minSync : Duration.ZERO));
    ipvsMap.put("scheduler", c.ipvs.scheduler);
    ipvsMap.put("excludeCIDRs", c.ipvs.excludeCIDRs);
    ipvsMap.put("strictARP", c.ipvs.strictARP);
    ipvsMap.put("tcpTimeout", GoDuration.format(c.ipvs.tcpTimeout));
    ipvsMap.put("tcpFinTimeout", GoDuration.format(c.ipvs.tcpFinTimeout));
    ipvsMap.put("udpTimeout", GoDuration.format(c.ipvs.udpTimeout));
    m.put("ipvs", ipvsMap);

    Map<String, Object> nftMap = new TreeMap<>();
    nftMap.put("masqueradeBit", c.nftables.masqueradeBit);
    nftMap.put("masqueradeAll", nft && masqAll);
    nftMap.put("syncPeriod", GoDuration.format(nft ? sync : Duration.ZERO));
    nftMap.put("minSyncPeriod", GoDuration.format(nft ? minSync : Duration.ZERO));
    m.put("nftables", nftMap);

    Map<String, Object> win = new TreeMap<>();
    win.put("networkName", c.winkernel.networkName);
    win.put("sourceVip", c.winkernel.sourceVip);
    win.put("enableDSR", c.winkernel.enableDSR);
    win.put("rootHnsEndpointName", c.winkernel.rootHnsEndpointName);
    win.put("forwardHealthCheckVip", c.winkernel.forwardHealthCheckVip);
    m.put("winkernel", win);

    m.put("detectLocalMode", c.detectLocalMode);
    Map<String, Object> dl = new TreeMap<>();
    dl.put("bridgeInterface", c.detectLocal.bridgeInterface);
    dl.put("interfaceNamePrefix", c.detectLocal.interfaceNamePrefix);
    m.put("detectLocal", dl);
    m.put("clusterCIDR", c.clusterCIDR);
    m.put("nodePortAddresses", c.nodePortAddresses);
    m.put("oomScoreAdj", c.oomScoreAdj);

    Map<String, Object> ct = new TreeMap<>();
    ct.put("maxPerCore", c.conntrack.maxPerCore);
    ct.put("min", c.conntrack.min);
    ct.put("tcpEstablishedTimeout", c.conntrack.tcpEstablishedTimeout == null ? null
        : GoDuration.format(c.conntrack.tcpEstablishedTimeout));
    ct.put("tcpCloseWaitTimeout", c.conntrack.tcpCloseWaitTimeout == null ? null
        : GoDuration.format(c.conntrack.tcpCloseWaitTimeout));
    ct.put("tcpBeLiberal", c.conntrack.tcpBeLiberal);
    ct.put("udpTimeout", GoDuration.format(c.conntrack.udpTimeout));
    ct.put("udpStreamTimeout", GoDuration.format(c.conntrack.udpStreamTimeout));
    m.put("conntrack", ct);
    m.put("configSyncPeriod", GoDuration.format(c.configSyncPeriod));
    m.put("portRange", "");
    if (c.windowsRunAsService) {
      m.put("windowsRunAsService", true);
    }
    return m;
  }

  /** Whole numbers print without a fraction (qps: 5), as Go's float32 JSON encoding does. */
  static Object qps(float qps) {
    if (qps == Math.rint(qps) && !Float.isInfinite(qps) && Math.abs(qps) < 1e15) {
      return (long) qps;
    }
    return Double.parseDouble(Float.toString(qps));
  }

  private static Map<String, Object> logging(KubeProxyConfiguration.Logging l) {
    Map<String, Object> m = new TreeMap<>();
    m.put("format", l.format);
    m.put("flushFrequency", GoDuration.format(l.flushFrequency));
    m.put("verbosity", l.verbosity);
    if (l.vmodule != null && !l.vmodule.isEmpty()) {
      List<Map<String, Object>> items = new ArrayList<>();
      for (KubeProxyConfiguration.VModuleItem item : l.vmodule) {
        Map<String, Object> i = new TreeMap<>();
        i.put("filePattern", item.filePattern);
        i.put("verbosity", item.verbosity);
        items.add(i);
      }
      m.put("vmodule", items);
    }
    Map<String, Object> options = new TreeMap<>();
    options.put("text", stream(l.options.text));
    options.put("json", stream(l.options.json));
    m.put("options", options);
    return m;
  }

  private static Map<String, Object> stream(KubeProxyConfiguration.StreamOptions s) {
    Map<String, Object> m = new TreeMap<>();
    if (s.splitStream) {
      m.put("splitStream", true);
    }
    m.put("infoBufferSize", s.infoBufferSize);
    return m;
  }
}
