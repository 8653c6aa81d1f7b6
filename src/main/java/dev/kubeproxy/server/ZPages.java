package dev.kubeproxy.server;

import dev.kubeproxy.cli.Version;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.function.Supplier;

/**
 * /statusz and /flagz on the metrics port (upstream k8s.io/apiserver/pkg/server/statusz and
 * .../flagz: handleStatusz, statusz, aggregatePaths; beta gates ComponentStatusz and
 * ComponentFlagz, on by default).
 *
 * <p>Without an Accept header, or when it accepts text/plain, the answer is the human text with
 * its "not meant to be machine parseable" banner and a delimiter picked at random (":", ": ", "="
 * or " "), so that nobody scrapes it. {@code Accept: application/json;v=v1beta1;g=config.k8s.io;as=Statusz}
 * (or {@code as=Flagz}, or {@code application/yaml} with the same parameters) gets the structured
 * config.k8s.io object in that version; v1alpha1 is still served, with a deprecation Warning
 * header. Any other Accept is 406 Not Acceptable with a Status object.
 *
 * <p>"goVersion" carries the Java runtime's version: this agent has no Go runtime.
 */
final class ZPages {
  static final String COMPONENT = "kube-proxy";
  static final String GROUP = "config.k8s.io";
  static final String VERSION = "v1beta1";
  /** Still answered, with upstream's deprecation warning. */
  static final String DEPRECATED_VERSION = "v1alpha1";
  private static final String DEPRECATION_WARNING =
      "299 - \"This version of the %s endpoint is deprecated. Please use a newer version.\"";
  /** sigs.k8s.io/yaml's output: the JSON object's keys sorted, no document marker. */
  private static final com.fasterxml.jackson.databind.ObjectMapper YAML = com.fasterxml.jackson.dataformat.yaml.YAMLMapper
      .builder()
      .disable(com.fasterxml.jackson.dataformat.yaml.YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .enable(com.fasterxml.jackson.dataformat.yaml.YAMLGenerator.Feature.MINIMIZE_QUOTES)
      .enable(com.fasterxml.jackson.databind.SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
      .build();
  private static final String[] DELIMITERS = {":", ": ", "=", " "};
  private static final String WARNING = "Warning: This endpoint is not meant to be machine parseable, has no formatting "
      + "compatibility guarantees and is for debugging purposes only.\n";
  private static final DateTimeFormatter UNIX_DATE = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss zzz yyyy", Locale.ENGLISH);

  private final Instant processStart;
  private final Supplier<Instant> clock;
  private final Random random;
  private final SortedMap<String, String> flags;
  private final List<String> paths;
  private String flagzText; // upstream builds it once and serves the same text (and delimiter) after

  /**
   * @param servedPaths the paths the metrics server lists (as upstream's mux ListedPaths): shown on
   *                    /statusz by their first segment, sorted
   */
  ZPages(SortedMap<String, String> flags, List<String> servedPaths) {
    this(flags, servedPaths, Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime()), Instant::now,
        new Random());
  }

  ZPages(SortedMap<String, String> flags, List<String> servedPaths, Instant processStart, Supplier<Instant> clock,
      Random random) {
    this.flags = flags;
    this.paths = aggregatePaths(servedPaths);
    this.processStart = processStart.truncatedTo(ChronoUnit.SECONDS); // upstream reads whole seconds
    this.clock = clock;
    this.random = random;
  }

  /** The binary version without the "v", as version.Version prints it. */
  String binaryVersion() {
    String v = Version.reported(flags.get("version"));
    return v.startsWith("v") ? v.substring(1) : v;
  }

  /** major.minor of the binary version: what the build emulates (DefaultBuildEffectiveVersion). */
  String emulationVersion() {
    String[] parts = binaryVersion().split("[.+-]");
    return parts.length >= 2 ? parts[0] + "." + parts[1] : binaryVersion();
  }

  static String goVersion() {
    return "java" + Runtime.version();
  }

  /** "/" and the first segment of each path, once each, sorted (statusz aggregatePaths). */
  static List<String> aggregatePaths(List<String> served) {
    java.util.TreeSet<String> folders = new java.util.TreeSet<>();
    for (String path : served) {
      String[] parts = path.split("/", -1);
      if (parts.length >= 2 && !parts[1].isEmpty()) {
        folders.add("/" + parts[1]);
      }
    }
    return List.copyOf(folders);
  }

  void statusz(RoutingContext ctx) {
    Negotiated n = negotiate(ctx.request().getHeader("Accept"), "Statusz");
    switch (n.answer()) {
      case TEXT -> text(ctx, statuszText());
      case JSON, YAML -> structured(ctx, n, statuszObject(n.version()), "statusz");
      default -> notAcceptable(ctx, "Statusz");
    }
  }

  void flagz(RoutingContext ctx) {
    Negotiated n = negotiate(ctx.request().getHeader("Accept"), "Flagz");
    switch (n.answer()) {
      case TEXT -> text(ctx, flagzText());
      case JSON, YAML -> structured(ctx, n, flagzObject(n.version()), "flagz");
      default -> notAcceptable(ctx, "Flagz");
    }
  }

  String statuszText() {
    String d = DELIMITERS[random.nextInt(DELIMITERS.length)];
    Instant now = clock.get();
    long up = Math.max(0, Duration.between(processStart, now).getSeconds());
    String uptime = String.format(Locale.ROOT, "%d hr %02d min %02d sec", up / 3600, up / 60 % 60, up % 60);
    return "\n" + COMPONENT + " statusz\n" + WARNING
        + "\nStarted" + d + " " + html(UNIX_DATE.format(processStart.atZone(ZoneId.systemDefault())))
        + "\nUp" + d + " " + html(uptime)
        + "\nGo version" + d + " " + html(goVersion())
        + "\nBinary version" + d + " " + html(binaryVersion())
        + "\nEmulation version" + d + " " + html(emulationVersion())
        + "\n" + (paths.isEmpty() ? "" : "Paths" + d + " " + html(String.join(" ", paths)))
        + "\n";
  }

  JsonObject statuszObject(String version) {
    long up = Math.max(0, Duration.between(processStart, clock.get()).getSeconds());
    return header("Statusz", version)
        .put("startTime", DateTimeFormatter.ISO_INSTANT.format(processStart))
        .put("uptimeSeconds", up)
        .put("goVersion", goVersion())
        .put("binaryVersion", binaryVersion())
        .put("emulationVersion", emulationVersion())
        .put("paths", paths.isEmpty() ? null : new JsonArray(paths));
  }

  synchronized String flagzText() {
    if (flagzText == null) {
      String d = DELIMITERS[random.nextInt(DELIMITERS.length)];
      StringBuilder b = new StringBuilder("\n" + COMPONENT + " flagz\n" + WARNING);
      flags.forEach((name, value) -> b.append(name).append(d).append(value).append('\n'));
      flagzText = b.toString();
    }
    return flagzText;
  }

  JsonObject flagzObject(String version) {
    JsonObject values = new JsonObject();
    flags.forEach(values::put);
    JsonObject o = header("Flagz", version);
    return values.isEmpty() ? o : o.put("flags", values);
  }

  private static JsonObject header(String kind, String version) {
    return new JsonObject().put("kind", kind).put("apiVersion", GROUP + "/" + version)
        .put("metadata", new JsonObject().put("name", COMPONENT));
  }

  enum Answer { TEXT, JSON, YAML, NOT_ACCEPTABLE }

  /** What to answer, and for JSON or YAML in which version. */
  record Negotiated(Answer answer, String version) {}

  /** One clause of an Accept header. */
  private record MediaRange(String type, String subtype, Map<String, String> params, double q) {}

  /**
   * Content negotiation as upstream's zpage handlers do it: no Accept is text; otherwise the
   * clauses by preference, text/plain (or a wildcard) without group/version/kind parameters is
   * text, application/json or application/yaml naming exactly this group and kind and a served
   * version is JSON or YAML.
   */
  static Negotiated negotiate(String accept, String kind) {
    if (accept == null || accept.isBlank()) {
      return new Negotiated(Answer.TEXT, null);
    }
    List<MediaRange> ranges = new ArrayList<>();
    for (String clause : accept.split(",")) {
      String[] parts = clause.split(";");
      String[] type = parts[0].trim().toLowerCase(Locale.ROOT).split("/", 2);
      if (type.length != 2) {
        continue;
      }
      Map<String, String> params = new java.util.TreeMap<>();
      double q = 1;
      for (int i = 1; i < parts.length; i++) {
        String[] kv = parts[i].split("=", 2);
        String key = kv[0].trim().toLowerCase(Locale.ROOT);
        String value = kv.length > 1 ? kv[1].trim() : "";
        if (key.equals("q")) {
          try {
            q = Double.parseDouble(value);
          } catch (NumberFormatException e) {
            q = 0;
          }
        } else {
          params.put(key, value);
        }
      }
      ranges.add(new MediaRange(type[0], type[1], params, q));
    }
    ranges.sort(Comparator.comparingDouble(MediaRange::q).reversed()); // stable: ties keep their order
    for (MediaRange r : ranges) {
      if (r.q() <= 0) {
        continue;
      }
      boolean typed = r.params().containsKey("g") || r.params().containsKey("v") || r.params().containsKey("as");
      boolean anyType = r.type().equals("*");
      if (!typed && (anyType || r.type().equals("text")) && (r.subtype().equals("*") || r.subtype().equals("plain"))) {
        return new Negotiated(Answer.TEXT, null);
      }
      String v = r.params().get("v");
      boolean served = VERSION.equals(v) || DEPRECATED_VERSION.equals(v);
      if (typed && served && (anyType || r.type().equals("application")) && GROUP.equals(r.params().get("g"))
          && kind.equals(r.params().get("as"))) {
        if (r.subtype().equals("*") || r.subtype().equals("json")) {
          return new Negotiated(Answer.JSON, v);
        }
        if (r.subtype().equals("yaml")) {
          return new Negotiated(Answer.YAML, v);
        }
      }
    }
    return new Negotiated(Answer.NOT_ACCEPTABLE, null);
  }

  private static void text(RoutingContext ctx, String body) {
    ctx.response().putHeader("Content-Type", "text/plain; charset=utf-8").end(body);
  }

  private static void structured(RoutingContext ctx, Negotiated n, JsonObject body, String endpoint) {
    if (DEPRECATED_VERSION.equals(n.version())) {
      ctx.response().putHeader("Warning", String.format(DEPRECATION_WARNING, endpoint));
    }
    if (n.answer() == Answer.YAML) {
      ctx.response().putHeader("Content-Type", "application/yaml").end(yaml(body));
    } else {
      ctx.response().putHeader("Content-Type", "application/json").end(body.encode());
    }
  }

  static String yaml(JsonObject body) {
    try {
      // through plain maps, which the mapper sorts (a JsonObject nested in getMap() would not be)
      return YAML.writeValueAsString(YAML.readValue(body.encode(), java.util.Map.class));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("cannot encode " + body.getString("kind") + " as YAML", e);
    }
  }

  private static void notAcceptable(RoutingContext ctx, String kind) {
    String message = "only the following media types are accepted: text/plain, application/json;v=" + VERSION + ";g=" + GROUP
        + ";as=" + kind + ", application/yaml;v=" + VERSION + ";g=" + GROUP + ";as=" + kind;
    JsonObject status = new JsonObject().put("kind", "Status").put("apiVersion", "v1").put("metadata", new JsonObject())
        .put("status", "Failure").put("message", message).put("reason", "NotAcceptable").put("code", 406);
    ctx.response().setStatusCode(406).putHeader("Content-Type", "application/json").end(status.encode());
  }

  /** Go's html.EscapeString. */
  private static String html(String s) {
    return s.replace("&", "&amp;").replace("'", "&#39;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&#34;");
  }
}
