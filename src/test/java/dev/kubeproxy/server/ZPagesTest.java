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
    return new ZPages(flags, start, () -> now, picking(delimiter));
  }

  @Test
  void statuszText() {
    String started = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss zzz yyyy", Locale.ENGLISH)
        .format(Instant.parse("2026-12-03T10:00:00Z").atZone(ZoneId.systemDefault()));
    assertEquals("\nkube-proxy statusz\nWarning: This endpoint is not meant to be machine parseable, has no formatting "
        + "compatibility guarantees and is for debugging purposes only.\n\n"
        + "Started: " + started + "\nUp: 1 hr 01 min 05 sec\nGo version: " + ZPages.goVersion()
        + "\nBinary version: " + ZPages.binaryVersion() + "\nEmulation version: " + ZPages.emulationVersion() + "\n\n",
        pages(0).statuszText());
    assertEquals("1.37.0", ZPages.binaryVersion());
    assertEquals("1.37", ZPages.emulationVersion());
    String equalsSign = pages(2).statuszText();
    assertTrue(equalsSign.contains("\nUp= 1 hr 01 min 05 sec\n"), equalsSign);
  }

  @Test
  void statuszObject() {
    JsonObject o = pages(0).statuszObject();
    assertEquals("{\"kind\":\"Statusz\",\"apiVersion\":\"config.k8s.io/v1alpha1\",\"metadata\":{\"name\":\"kube-proxy\"},"
        + "\"startTime\":\"2026-12-03T10:00:00Z\",\"uptimeSeconds\":3665,\"goVersion\":\"" + ZPages.goVersion() + "\","
        + "\"binaryVersion\":\"1.37.0\",\"emulationVersion\":\"1.37\",\"paths\":null}", o.encode());
  }

  @Test
  void flagzTextIsSortedAndKeepsItsDelimiter() {
    ZPages p = pages(3);
    String text = p.flagzText();
    assertEquals("\nkube-proxy flagz\nWarning: This endpoint is not meant to be machine parseable, has no formatting "
        + "compatibility guarantees and is for debugging purposes only.\nbind-address 0.0.0.0\nv 2\n", text);
    assertEquals(text, p.flagzText());
    assertEquals("{\"kind\":\"Flagz\",\"apiVersion\":\"config.k8s.io/v1alpha1\",\"metadata\":{\"name\":\"kube-proxy\"},"
        + "\"flags\":{\"bind-address\":\"0.0.0.0\",\"v\":\"2\"}}", p.flagzObject().encode());
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

  @Test
  void negotiationFollowsUpstreamsCases() {
    assertEquals(Answer.TEXT, ZPages.negotiate(null, "Statusz"));
    assertEquals(Answer.TEXT, ZPages.negotiate("", "Statusz"));
    assertEquals(Answer.TEXT, ZPages.negotiate("text/plain", "Statusz"));
    assertEquals(Answer.TEXT, ZPages.negotiate("text/plain; charset=utf-8", "Statusz"));
    assertEquals(Answer.TEXT, ZPages.negotiate("*/*", "Statusz"));
    assertEquals(Answer.JSON, ZPages.negotiate("application/json;v=v1alpha1;g=config.k8s.io;as=Statusz", "Statusz"));
    assertEquals(Answer.JSON, ZPages.negotiate("application/json;g=config.k8s.io;v=v1alpha1;as=Flagz", "Flagz"));
    assertEquals(Answer.NOT_ACCEPTABLE, ZPages.negotiate("application/json;g=config.k8s.io;v=v1alpha1;as=Flagz", "Statusz"));
    assertEquals(Answer.NOT_ACCEPTABLE, ZPages.negotiate("application/xml", "Statusz"));
    assertEquals(Answer.NOT_ACCEPTABLE, ZPages.negotiate("application/json", "Statusz"));
    assertEquals(Answer.NOT_ACCEPTABLE, ZPages.negotiate("application/json;v=v1alpha1;g=config.k8s.io", "Statusz"));
    assertEquals(Answer.TEXT, ZPages.negotiate("application/json;v=foo;g=config.k8s.io;as=Statusz,*/*", "Statusz"));
    assertEquals(Answer.JSON, ZPages.negotiate("text/plain;q=0.5, application/json;v=v1alpha1;g=config.k8s.io;as=Statusz", "Statusz"));
  }
}
