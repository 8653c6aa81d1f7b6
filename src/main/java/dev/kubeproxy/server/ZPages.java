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
 * /statusz and /flagz on the metrics port (upstream since v1.33 under the alpha gates
 * ComponentStatusz and ComponentFlagz; the versioned responses of v1.35, kubernetes#134313 and
 * #134995: k8s.io/apiserver/pkg/server/statusz and .../flagz).
 *
 * <p>Without an Accept header, or when it accepts text/plain, the answer is the human text with
 * its "not meant to be machine parseable" banner and a delimiter picked at random (":", ": ", "="
 * or " "), so that nobody scrapes it. {@code Accept: application/json;v=v1alpha1;g=config.k8s.io;as=Statusz}
 * (or {@code as=Flagz}) gets the structured config.k8s.io/v1alpha1 object; any other Accept is
 * 406 Not Acceptable with a Status object. YAML, which upstream's codec factory also offers, is not
 * served.
 *
 * <p>"goVersion" carries the Java runtime's version: this agent has no Go runtime.
 */
final class ZPages {
  static final String COMPONENT = "kube-proxy";
  static final String GROUP = "config.k8s.io";
  static final String VERSION = "v1alpha1";
  private static final String[] DELIMITERS = {":", ": ", "=", " "};
  private static final String WARNING = "Warning: This endpoint is not meant to be machine parseable, has no formatting "
      + "compatibility guarantees and is for debugging purposes only.\n";
  private static final DateTimeFormatter UNIX_DATE = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss zzz yyyy", Locale.ENGLISH);

  private final Instant processStart;
  private final Supplier<Instant> clock;
  private final Random random;
  private final SortedMap<String, String> flags;
  private String flagzText; // upstream builds it once and serves the same text (and delimiter) after

  ZPages(SortedMap<String, String> flags) {
    this(flags, Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime()), Instant::now, new Random());
  }

  ZPages(SortedMap<String, String> flags, Instant processStart, Supplier<Instant> clock, Random random) {
    this.flags = flags;
    this.processStart = processStart.truncatedTo(ChronoUnit.SECONDS); // upstream reads whole seconds
    this.clock = clock;
    this.random = random;
  }

  /** The binary version without the "v", as version.Version prints it. */
  static String binaryVersion() {
    String v = Version.gitVersion();
    return v.startsWith("v") ? v.substring(1) : v;
  }

  /** major.minor of the binary version: what the build emulates (DefaultBuildEffectiveVersion). */
  static String emulationVersion() {
    String[] parts = binaryVersion().split("[.+-]");
    return parts.length >= 2 ? parts[0] + "." + parts[1] : binaryVersion();
  }

  static String goVersion() {
    return "java" + Runtime.version();
  }

  void statusz(RoutingContext ctx) {
    switch (negotiate(ctx.request().getHeader("Accept"), "Statusz")) {
      case TEXT -> text(ctx, statuszText());
      case JSON -> json(ctx, statuszObject());
      default -> notAcceptable(ctx, "Statusz");
    }
  }

  void flagz(RoutingContext ctx) {
    switch (negotiate(ctx.request().getHeader("Accept"), "Flagz")) {
      case TEXT -> text(ctx, flagzText());
      case JSON -> json(ctx, flagzObject());
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
        + "\n" // upstream's kube-proxy lists no paths: an empty "Paths" line
        + "\n";
  }

  JsonObject statuszObject() {
    long up = Math.max(0, Duration.between(processStart, clock.get()).getSeconds());
    return header("Statusz")
        .put("startTime", DateTimeFormatter.ISO_INSTANT.format(processStart))
        .put("uptimeSeconds", up)
        .put("goVersion", goVersion())
        .put("binaryVersion", binaryVersion())
        .put("emulationVersion", emulationVersion())
        .put("paths", (JsonArray) null);
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

  JsonObject flagzObject() {
    JsonObject values = new JsonObject();
    flags.forEach(values::put);
    JsonObject o = header("Flagz");
    return values.isEmpty() ? o : o.put("flags", values);
  }

  private static JsonObject header(String kind) {
    return new JsonObject().put("kind", kind).put("apiVersion", GROUP + "/" + VERSION)
        .put("metadata", new JsonObject().put("name", COMPONENT));
  }

  enum Answer { TEXT, JSON, NOT_ACCEPTABLE }

  /** One clause of an Accept header. */
  private record MediaRange(String type, String subtype, Map<String, String> params, double q) {}

  /**
   * Content negotiation as upstream's zpage handlers do it: no Accept is text; otherwise the
   * clauses by preference, text/plain (or a wildcard) without group/version/kind parameters is
   * text, application/json naming exactly this group, version and kind is JSON.
   */
  static Answer negotiate(String accept, String kind) {
    if (accept == null || accept.isBlank()) {
      return Answer.TEXT;
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
        return Answer.TEXT;
      }
      if (typed && (anyType || r.type().equals("application")) && (r.subtype().equals("*") || r.subtype().equals("json"))
          && GROUP.equals(r.params().get("g")) && VERSION.equals(r.params().get("v")) && kind.equals(r.params().get("as"))) {
        return Answer.JSON;
      }
    }
    return Answer.NOT_ACCEPTABLE;
  }

  private static void text(RoutingContext ctx, String body) {
    ctx.response().putHeader("Content-Type", "text/plain; charset=utf-8").end(body);
  }

  private static void json(RoutingContext ctx, JsonObject body) {
    ctx.response().putHeader("Content-Type", "application/json").end(body.encode());
  }

  private static void notAcceptable(RoutingContext ctx, String kind) {
    String message = "only the following media types are accepted: text/plain, application/json;v=" + VERSION + ";g=" + GROUP
        + ";as=" + kind;
    JsonObject status = new JsonObject().put("kind", "Status").put("apiVersion", "v1").put("metadata", new JsonObject())
        .put("status", "Failure").put("message", message).put("reason", "NotAcceptable").put("code", 406);
    ctx.response().setStatusCode(406).putHeader("Content-Type", "application/json").end(status.encode());
  }

  /** Go's html.EscapeString. */
  private static String html(String s) {
    return s.replace("&", "&amp;").replace("'", "&#39;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&#34;");
  }
}
