package dev.kubeproxy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.config.ConfigCodec;
import dev.kubeproxy.runtime.ConfigVerticle;
import dev.kubeproxy.config.ConfigzJson;
import dev.kubeproxy.testutil.Await;
import dev.kubeproxy.testutil.VertxPerClass;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

@Unit
class StartupTest {
  @TempDir
  Path dir;

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @RegisterExtension
  static final VertxPerClass VERTX = new VertxPerClass();

  /**
   * Parse, read --config with the agent's ConfigVerticle, then prepare, which never fails: every error
   * is an exit status.
   */
  private Startup.Outcome prepare(String... args) {
    Startup.Parsed parsed = Startup.parse(List.of(args), new PrintStream(out, true), new PrintStream(err, true));
    if (parsed instanceof Startup.Exit exit) {
      return exit;
    }
    Startup.Flags flags = (Startup.Flags) parsed;
    ConfigVerticle configFile = new ConfigVerticle(flags.configFile());
    Future<String> deployed = VERTX.get().deployVerticle(configFile);
    Await.completion(deployed);
    try {
      return Startup.prepare(flags, deployed.succeeded()
          ? Future.succeededFuture(configFile.loaded()) : Future.failedFuture(deployed.cause()));
    } finally {
      if (deployed.succeeded()) {
        Await.result(VERTX.get().undeploy(deployed.result()));
      }
    }
  }

  private int status(String... args) {
    return ((Startup.Exit) prepare(args)).status();
  }

  @Test
  void versionAndHelpExitZero() {
    assertEquals(0, status("--version"));
    assertEquals("Kubernetes v1.37.0\n", out.toString(StandardCharsets.UTF_8));
    out.reset();
    assertEquals(0, status("--version=raw"));
    assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("version.Info{Major:\"1\", Minor:\"37\""));
    out.reset();
    assertEquals(0, status("--help"));
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("Usage:\n  kube-proxy [flags]"));
  }

  @Test
  void badFlagIsOneClearLine() {
    assertEquals(1, status("--oom-score-adj=x"));
    assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("Error: invalid argument \"x\" for "
        + "\"--oom-score-adj\" flag: strconv.ParseInt: parsing \"x\": invalid syntax\n"));
  }

  @Test
  void invalidConfigurationExitsOne() {
    assertEquals(1, status("--iptables-masquerade-bit=40"));
    assertEquals(1, status("--feature-gates=NoSuchGate=true"));
    assertEquals(1, status("--logging-format=xml"));
  }

  @Test
  void writeConfigToRoundTrip() throws Exception {
    Path first = dir.resolve("first.yaml");
    Path second = dir.resolve("second.yaml");
    assertEquals(0, status("--write-config-to", first.toString(), "--proxy-mode=nftables",
        "--iptables-sync-period=20s", "--cluster-cidr=10.244.0.0/16", "--hostname-override=Node-1",
        "--feature-gates=MultiCIDRServiceAllocator=true", "--v=2"));
    String written = Files.readString(first);
    assertTrue(written.contains("mode: nftables\n"), written);
    assertTrue(written.contains("nodePortAddresses:\n- primary\n"), written);
    assertTrue(written.contains("hostnameOverride: node-1\n"), written);
    assertEquals(0, status("--config", first.toString(), "--write-config-to", second.toString()));
    assertEquals(written, Files.readString(second));
    assertEquals(ConfigzJson.encode(ConfigCodec.decode("a", written.getBytes(StandardCharsets.UTF_8)).config()),
        ConfigzJson.encode(ConfigCodec.decode("b", Files.readAllBytes(second)).config()));
  }

  @Test
  void runOutcomeCarriesTheAgentOptions() {
    Startup.Outcome o = prepare("--hostname-override=Worker-1", "--master=https://api:6443", "--dry-run",
        "--manifests=/m", "--cleanup");
    AgentOptions a = assertInstanceOf(Startup.Run.class, o).options();
    assertEquals("worker-1", a.hostname());
    assertEquals("https://api:6443", a.master());
    assertTrue(a.dryRun());
    assertTrue(a.cleanup());
    assertEquals("/m", a.manifestsDir());
    assertEquals("iptables", a.config().mode);
  }

  @Test
  void verbosityFlagConfiguresTheLogger() {
    assertInstanceOf(Startup.Run.class, prepare("--dry-run", "--v=1"));
    assertEquals(1, dev.kubeproxy.logging.Log.verbosity());
    dev.kubeproxy.logging.Log.setVerbosity(0);
  }

  @Test
  void nodeNameFromTheOsWhenNotOverridden() {
    String name = Startup.nodeName("");
    assertEquals(name.strip().toLowerCase(), name);
    assertTrue(!name.isEmpty());
    assertEquals("node-x", Startup.nodeName(" Node-X "));
  }

  @Test
  void jsonArgsMapToFlags() {
    JsonObject json = new JsonObject().put("config", "/etc/kp.yaml").put("v", 2).put("dry-run", true)
        .put("nodeport-addresses", new io.vertx.core.json.JsonArray().add("10.0.0.0/8").add("fd00::/64"))
        .put("feature-gates", new JsonObject().put("MultiCIDRServiceAllocator", true))
        .put("--hostname-override", "n1");
    assertEquals(List.of("--config=/etc/kp.yaml", "--v=2", "--dry-run=true", "--nodeport-addresses=10.0.0.0/8,fd00::/64",
        "--feature-gates=MultiCIDRServiceAllocator=true", "--hostname-override=n1"), JsonArgs.toArgs(json));
  }
}
