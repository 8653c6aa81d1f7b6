package dev.kubeproxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.server.ZPages.Answer;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

@Unit
class ZPagesTest {
  private static final java.util.List<String> SERVED = java.util.List.of("/metrics", "/metrics/slis", "/healthz",
      "/healthz/ping", "/proxyMode", "/configz", "/flagz");
  private final Instant start = Instant.parse("2026-12-03T10:00:00.700Z");
  private final Instant now = Instant.parse("2026-12-03T11:01:05Z");

  /** A Random whose first nextInt(4) is {@code index}: the delimiter ":", ": ", "=", " ". */
  private static Random picking(int index) {
    return new Random() {
      @Override
      public int nextInt(int bound) {
        return index;
      }
    };
  }

  private ZPages pages(int delimiter) {
    TreeMap<String, String> flags = new TreeMap<>();
    flags.put("v", "2");
    flags.put("bind-address", "0.0.0.0");
    return new ZPages(flags, SERVED, start, () -> now, picking(delimiter));
  }

  @Test
  void statuszText() {
    String started = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss zzz yyyy", Locale.ENGLISH)
        .format(Instant.parse("2026-12-03T10:00:00Z").atZone(ZoneId.systemDefault()));
    assertEquals("\nkube-proxy statusz\nWarning: This endpoint is not meant to be machine parseable, has no formatting "
        + "compatibility guarantees and is for debugging purposes only.\n\n"
        + "Started: " + started + "\nUp: 1 hr 01 min 05 sec\nGo version: " + ZPages.goVersion()
        + "\nBinary version: " + pages(0).binaryVersion() + "\nEmulation version: " + pages(0).emulationVersion()
        + "\nPaths: /configz /flagz /healthz /metrics /proxyMode\n",
        pages(0).statuszText());
    assertEquals("1.37.0", pages(0).binaryVersion());
    assertEquals("1.37", pages(0).emulationVersion());
    String equalsSign = pages(2).statuszText();
    assertTrue(equalsSign.contains("\nUp= 1 hr 01 min 05 sec\n"), equalsSign);
  }

  @Test
  void versionFlagOverridesTheReportedVersion() {
    TreeMap<String, String> flags = new TreeMap<>();
    flags.put("version", "v1.2.3-custom");
    ZPages p = new ZPages(flags, SERVED, start, () -> now, picking(0));
    assertEquals("1.2.3-custom", p.binaryVersion());
    assertEquals("1.2", p.emulationVersion());
    flags.put("version", "false");
    assertEquals("1.37.0", new ZPages(flags, SERVED, start, () -> now, picking(0)).binaryVersion());
  }

  @Test
  void statuszObject() {
    JsonObject o = pages(0).statuszObject(ZPages.VERSION);
    assertEquals("{\"kind\":\"Statusz\",\"apiVersion\":\"config.k8s.io/v1beta1\",\"metadata\":{\"name\":\"kube-proxy\"},"
        + "\"startTime\":\"2026-12-03T10:00:00Z\",\"uptimeSeconds\":3665,\"goVersion\":\"" + ZPages.goVersion() + "\","
        + "\"binaryVersion\":\"1.37.0\",\"emulationVersion\":\"1.37\","
        + "\"paths\":[\"/configz\",\"/flagz\",\"/healthz\",\"/metrics\",\"/proxyMode\"]}", o.encode());
    assertEquals("config.k8s.io/v1alpha1", pages(0).statuszObject("v1alpha1").getString("apiVersion"));
  }

  @Test
  void statuszYamlHasSortedKeys() {
    String yaml = ZPages.yaml(pages(0).statuszObject(ZPages.VERSION));
    assertTrue(yaml.startsWith("apiVersion: config.k8s.io/v1beta1\nbinaryVersion: 1.37.0\n"), yaml);
    assertTrue(yaml.contains("\nkind: Statusz\nmetadata:\n  name: kube-proxy\npaths:\n- /configz\n- /flagz\n"), yaml);
    assertTrue(yaml.contains("\nuptimeSeconds: 3665\n"), yaml);
  }

  @Test
  void pathsAreTheFirstSegmentsSortedOnce() {
    assertEquals(java.util.List.of("/configz", "/debug", "/metrics"),
        ZPages.aggregatePaths(java.util.List.of("/metrics/slis", "/debug/services", "/", "/configz", "/metrics")));
  }

  @Test
  void flagzTextIsSortedAndKeepsItsDelimiter() {
    ZPages p = pages(3);
    String text = p.flagzText();
    assertEquals("\nkube-proxy flagz\nWarning: This endpoint is not meant to be machine parseable, has no formatting "
        + "compatibility guarantees and is for debugging purposes only.\nbind-address 0.0.0.0\nv 2\n", text);
    assertEquals(text, p.flagzText());
    assertEquals("{\"kind\":\"Flagz\",\"apiVersion\":\"config.k8s.io/v1alpha1\",\"metadata\":{\"name\":\"kube-proxy\"},"
        + "\"flags\":{\"bind-address\":\"0.0.0.0\",\"v\":\"2\"}}", p.flagzObject("v1alpha1").encode());
    assertEquals("config.k8s.io/v1beta1", p.flagzObject(ZPages.VERSION).getString("apiVersion"));
  }

  @Test
  void theGatesAreBetaAndOnByDefault() {
    for (String gate : java.util.List.of("ComponentStatusz", "ComponentFlagz")) {
      dev.kubeproxy.config.FeatureGates.Gate g = dev.kubeproxy.config.FeatureGates.KNOWN.stream()
          .filter(k -> k.name().equals(gate)).findFirst().orElseThrow();
      assertEquals(dev.kubeproxy.config.FeatureGates.Stage.BETA, g.stage());
      assertTrue(dev.kubeproxy.config.FeatureGates.of(java.util.Map.of()).isEnabled(gate));
      assertFalse(dev.kubeproxy.config.FeatureGates.of(java.util.Map.of(gate, false)).isEnabled(gate));
    }
  }

  private static Answer answer(String accept, String kind) {
    return ZPages.negotiate(accept, kind).answer();
  }

  @Test
  void negotiationFollowsUpstreamsCases() {
    assertEquals(Answer.TEXT, answer(null, "Statusz"));
    assertEquals(Answer.TEXT, answer("", "Statusz"));
    assertEquals(Answer.TEXT, answer("text/plain", "Statusz"));
    assertEquals(Answer.TEXT, answer("text/plain; charset=utf-8", "Statusz"));
    assertEquals(Answer.TEXT, answer("*/*", "Statusz"));
    assertEquals(new ZPages.Negotiated(Answer.JSON, "v1beta1"),
        ZPages.negotiate("application/json;as=Statusz;v=v1beta1;g=config.k8s.io", "Statusz"));
    assertEquals(new ZPages.Negotiated(Answer.JSON, "v1alpha1"),
        ZPages.negotiate("application/json;v=v1alpha1;g=config.k8s.io;as=Statusz", "Statusz"));
    assertEquals(new ZPages.Negotiated(Answer.YAML, "v1beta1"),
        ZPages.negotiate("application/yaml;as=Flagz;v=v1beta1;g=config.k8s.io", "Flagz"));
    assertEquals(Answer.JSON, answer("application/json;g=config.k8s.io;v=v1alpha1;as=Flagz", "Flagz"));
    assertEquals(Answer.NOT_ACCEPTABLE, answer("application/json;g=config.k8s.io;v=v1beta1;as=Flagz", "Statusz"));
    assertEquals(Answer.NOT_ACCEPTABLE, answer("application/json;g=config.k8s.io;v=v1;as=Statusz", "Statusz"));
    assertEquals(Answer.NOT_ACCEPTABLE, answer("application/xml", "Statusz"));
    assertEquals(Answer.NOT_ACCEPTABLE, answer("application/json", "Statusz"));
    assertEquals(Answer.NOT_ACCEPTABLE, answer("application/yaml", "Statusz"));
    assertEquals(Answer.NOT_ACCEPTABLE, answer("application/json;v=v1beta1;g=config.k8s.io", "Statusz"));
    assertEquals(Answer.TEXT, answer("application/json;v=foo;g=config.k8s.io;as=Statusz,*/*", "Statusz"));
    assertEquals(Answer.JSON, answer("text/plain;q=0.5, application/json;v=v1beta1;g=config.k8s.io;as=Statusz", "Statusz"));
  }
}
