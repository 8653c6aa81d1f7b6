package dev.kubeproxy.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@Unit
class LogTest {
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

  private void configure(LogFormat format, int v, List<VModule.Entry> vmodule) {
    Log.configure(format, v, vmodule, false);
    PrintStream ps = new PrintStream(buffer, true, StandardCharsets.UTF_8);
    Log.setOutputs(ps, ps);
  }

  private List<String> lines() {
    String s = buffer.toString(StandardCharsets.UTF_8);
    return s.isEmpty() ? List.of() : List.of(s.split("\n"));
  }

  @BeforeEach
  void setUp() {
    JulBridge.install();
    configure(LogFormat.TEXT, 0, List.of());
  }

  @AfterEach
  void reset() {
    Log.configure(LogFormat.TEXT, 0, List.of(), false);
  }

  @Test
  void klogTextLine() {
    Log.info("Using iptables proxy", "ipFamily", "IPv4", "count", 3, "ok", true, "period", Duration.ofSeconds(30),
        "ips", List.of("10.0.0.1", "fd00::1"));
    String line = lines().get(0);
    assertTrue(line.matches("I\\d{4} \\d{2}:\\d{2}:\\d{2}\\.\\d{6} +\\d+ LogTest\\.java:\\d+] \"Using iptables proxy\" "
        + "ipFamily=\"IPv4\" count=3 ok=true period=\"30s\" ips=\\[\"10.0.0.1\",\"fd00::1\"]"), line);
  }

  @Test
  void severitiesAndErrors() {
    Log.warn("careful");
    Log.error("Failed to apply OOMScore", new IllegalStateException("permission denied"), "file", "/proc/self/x");
    List<String> l = lines();
    assertTrue(l.get(0).startsWith("W"), l.get(0));
    assertTrue(l.get(1).startsWith("E"), l.get(1));
    assertTrue(l.get(1).endsWith("\"Failed to apply OOMScore\" err=\"permission denied\" file=\"/proc/self/x\""), l.get(1));
  }

  @Test
  void quotingEscapes() {
    Log.info("line\nbreak", "q", "say \"hi\"");
    assertTrue(lines().get(0).endsWith("\"line\\nbreak\" q=\"say \\\"hi\\\"\""), lines().get(0));
  }

  @Test
  void verbosityGates() {
    Log.v(1).info("hidden");
    assertFalse(Log.enabled(1));
    assertEquals(List.of(), lines());
    Log.setVerbosity(2);
    Log.v(2).info("shown");
    Log.v(3).info("still hidden");
    assertEquals(1, lines().size());
    assertTrue(lines().get(0).contains("\"shown\""));
    assertEquals(2, Log.verbosity());
  }

  @Test
  void vmoduleRaisesOneSource() {
    configure(LogFormat.TEXT, 0, VModule.parse("LogTest=3,Other*=9"));
    Log.v(3).info("from this file");
    Log.v(4).info("too verbose");
    assertEquals(1, lines().size());
    configure(LogFormat.TEXT, 0, VModule.parse("dev/kubeproxy/logging/*=5"));
    Log.v(5).info("by class path");
    assertEquals(2, lines().size());
    assertTrue(lines().get(1).contains("by class path"));
  }

  @Test
  void jsonFormat() {
    configure(LogFormat.JSON, 0, List.of());
    Log.info("Version info", "version", "v1.31.0");
    Log.error("command failed", new RuntimeException("boom"));
    JsonObject info = new JsonObject(lines().get(0));
    assertEquals("Version info", info.getString("msg"));
    assertEquals(0, info.getInteger("v"));
    assertEquals("v1.31.0", info.getString("version"));
    assertTrue(info.getString("caller").matches("LogTest\\.java:\\d+"));
    assertTrue(info.getDouble("ts") > 1.6e12, "milliseconds since the epoch");
    assertTrue(lines().get(0).matches("\\{\"ts\":\\d{13}\\.\\d{3},.*"), "plain decimal: " + lines().get(0));
    JsonObject err = new JsonObject(lines().get(1));
    assertEquals("boom", err.getString("err"));
    assertFalse(err.containsKey("v"), "errors carry no verbosity");
  }

  @Test
  void javaUtilLoggingAndSystemLoggerAreRouted() {
    Logger.getLogger("io.vertx.test").warning("from JUL");
    System.getLogger("dev.kubeproxy.test").log(System.Logger.Level.INFO, "from System.Logger");
    System.getLogger("dev.kubeproxy.test").log(System.Logger.Level.DEBUG, "debug hidden at v=0");
    List<String> l = lines();
    assertEquals(2, l.size(), l.toString());
    assertTrue(l.get(0).startsWith("W") && l.get(0).contains("LogTest.java:") && l.get(0).endsWith("] from JUL"), l.get(0));
    assertTrue(l.get(1).startsWith("I") && l.get(1).contains("LogTest.java:") && l.get(1).endsWith("] from System.Logger"),
        l.get(1));
    Log.setVerbosity(2);
    System.getLogger("dev.kubeproxy.test").log(System.Logger.Level.DEBUG, "debug shown at v=2");
    assertTrue(lines().get(2).endsWith("debug shown at v=2"));
  }

  @Test
  void vmoduleParseErrors() {
    assertEquals("\"x\" does not have the pattern=N format (e.g. ProxierVerticle=4)",
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> VModule.parse("x"))
            .getMessage());
  }
}
