package dev.kubeproxy.cli;

import dev.kubeproxy.config.ConfigCodec;
import dev.kubeproxy.config.ConfigDecodeException;
import dev.kubeproxy.config.ConfigDefaults;
import dev.kubeproxy.config.ConfigFileLoader;
import dev.kubeproxy.config.ConfigWatchFailedException;
import dev.kubeproxy.config.FeatureGates;
import dev.kubeproxy.net.HostPortText;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.logging.VModule;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/**
 * upstream's Options.Complete (cmd/kube-proxy/app/options.go): builds the effective configuration
 * from the flag defaults, the flags or the --config file, the platform defaults, --hostname-override and the
 * feature gates, with upstream's precedence.
 *
 * @param config        the completed configuration (the mode's sync periods and masqueradeAll are in
 *                      the active mode's section, where {@link KubeProxyConfiguration} reads them)
 * @param configFile    --config, or null
 * @param writeConfigTo --write-config-to, or null
 * @param gates         the feature gates after applying the configuration's featureGates
 */
public record KubeProxyOptions(
    KubeProxyConfiguration config,
    String configFile,
    String writeConfigTo,
    String master,
    boolean cleanup,
    boolean initOnly,
    String manifestsDir,
    boolean dryRun,
    FeatureGates gates) {

  /**
   * Complete for a command that runs outside the agent ({@code kube-proxy explain}): blocks while the
   * --config file is read once through {@link ConfigFileLoader} on a Vert.x instance of its own, closed
   * afterwards. The agent reads the file in its {@code ConfigVerticle}, which also watches it.
   */
  public static KubeProxyOptions completeBlocking(ParsedFlags f) throws CompleteException {
    String configFile = emptyToNull(f.getString("config"));
    if (configFile == null) {
      return complete(f, Future.succeededFuture());
    }
    Vertx vertx = Vertx.vertx();
    try {
      Future<ConfigCodec.Decoded> read = ConfigFileLoader.load(vertx, configFile);
      read.toCompletionStage().exceptionally(err -> null).toCompletableFuture().get();
      return complete(f, read);
    } catch (ExecutionException e) {
      throw new CompleteException(String.valueOf(e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CompleteException("interrupted while reading " + configFile);
    } finally {
      vertx.close();
    }
  }

  /**
   * Complete over the flags and the --config file as it was read (cmd/kube-proxy/app/options.go
   * Options.Complete): {@code file} is the decoded file (null without --config), or the reader's or
   * decoder's failure, reported in upstream's words; strict-decoding errors fall back to the lenient
   * object with upstream's log line (options.go Options.loadConfig).
   */
  public static KubeProxyOptions complete(ParsedFlags f, AsyncResult<ConfigCodec.Decoded> file)
      throws CompleteException {
    String configFile = emptyToNull(f.getString("config"));
    if (file.failed()) {
      throw loadError(configFile, file.cause());
    }
    ConfigCodec.Decoded decoded = configFile == null ? null : file.result();
    if (decoded != null && !decoded.strict()) {
      Log.info("Using lenient decoding as strict decoding failed", "err", decoded.strictError());
    }
    return complete(f, decoded == null ? null : decoded.config());
  }

  /**
   * Complete over the flags and, with --config, the file's decoded configuration.
   *
   * @param loaded the --config file's configuration (defaults applied), null without --config
   */
  static KubeProxyOptions complete(ParsedFlags f, KubeProxyConfiguration loaded) throws CompleteException {
    String configFile = emptyToNull(f.getString("config"));
    String writeConfigTo = emptyToNull(f.getString("write-config-to"));

    // The flags start from the defaulted v1alpha1 object, converted to the internal view: the sync
    // periods come from the iptables section whatever mode is chosen later
    // (cmd/kube-proxy/app/options.go processV1Alpha1Flags).
    KubeProxyConfiguration config = ConfigDefaults.defaulted();
    Duration syncPeriod = config.iptables.syncPeriod;
    Duration minSyncPeriod = config.iptables.minSyncPeriod;
    boolean masqueradeAll = f.getBool("masquerade-all");
    applyConfigFlags(config, f);
    applyLoggingFlags(config, f, false);

    // 1. deprecated port flags, only without --config and --write-config-to
    if (configFile == null && writeConfigTo == null) {
      config.healthzBindAddress = addressFromDeprecated(config.healthzBindAddress, f.<Integer>get("healthz-port"));
      config.metricsBindAddress = addressFromDeprecated(config.metricsBindAddress, f.<Integer>get("metrics-port"));
    }

    if (configFile != null) {
      // 2. the file replaces every configuration flag; explicitly set logging flags win
      applyLoggingFlags(loaded, f, true);
      config = loaded;
    } else {
      // 3. processV1Alpha1Flags: the sync-period flags by (raw) mode, the cluster CIDRs
      boolean ipvs = ProxyMode.IPVS.text().equals(f.getString("proxy-mode"));
      if (f.isSet("iptables-sync-period") && !ipvs) {
        syncPeriod = f.get("iptables-sync-period");
      }
      if (f.isSet("iptables-min-sync-period") && !ipvs) {
        minSyncPeriod = f.get("iptables-min-sync-period");
      }
      if (f.isSet("ipvs-sync-period") && ipvs) {
        syncPeriod = f.get("ipvs-sync-period");
      }
      if (f.isSet("ipvs-min-sync-period") && ipvs) {
        minSyncPeriod = f.get("ipvs-min-sync-period");
      }
    }

    // 4. platform defaults (Linux)
    if (config.mode == null || config.mode.isEmpty()) {
      Log.info("Using iptables proxy");
      config.mode = ProxyMode.IPTABLES.text();
    }
    if (config.mode.equals(ProxyMode.NFTABLES.text()) && (config.nodePortAddresses == null || config.nodePortAddresses.isEmpty())) {
      config.nodePortAddresses = new ArrayList<>(List.of("primary"));
    }
    if (config.detectLocalMode == null || config.detectLocalMode.isEmpty()) {
      Log.v(4).info("Defaulting detect-local-mode", "localModeClusterCIDR", "ClusterCIDR");
      config.detectLocalMode = "ClusterCIDR";
    }
    Log.v(2).info("DetectLocalMode", "localMode", config.detectLocalMode);
    if (configFile == null) {
      storeInternalValues(config, syncPeriod, minSyncPeriod, masqueradeAll);
    }

    // 5. --hostname-override wins even over the file
    String override = f.getString("hostname-override");
    if (!override.isEmpty()) {
      String trimmed = override.strip();
      if (trimmed.isEmpty()) {
        throw new CompleteException("empty hostname-override is invalid");
      }
      config.hostnameOverride = trimmed.toLowerCase(Locale.ROOT);
    }

    // 6. feature gates: from the file with --config, else from the flag
    FeatureGates.Applied applied;
    try {
      applied = FeatureGates.apply(config.featureGates == null ? Map.of() : config.featureGates);
    } catch (IllegalArgumentException e) {
      throw new CompleteException(e.getMessage());
    }
    applied.warnings().forEach(Log::warn);

    return new KubeProxyOptions(config, configFile, writeConfigTo, emptyToNull(f.getString("master")),
        f.getBool("cleanup"), f.getBool("init-only"), emptyToNull(f.getString("manifests")), f.getBool("dry-run"),
        applied.gates());
  }

  private static CompleteException loadError(String configFile, Throwable err) {
    if (err instanceof ConfigWatchFailedException) {
      return new CompleteException(err.getMessage());
    }
    if (err instanceof ConfigDecodeException) {
      return new CompleteException("failed to decode: " + err.getMessage());
    }
    if (err instanceof NoSuchFileException) {
      return new CompleteException("open " + configFile + ": no such file or directory");
    }
    if (err instanceof AccessDeniedException) {
      return new CompleteException("open " + configFile + ": permission denied");
    }
    return new CompleteException("read " + configFile + ": " + err.getMessage());
  }

  /**
   * Sets the configuration fields of the flags given on the command line (each flag names its field),
   * except the logging section's.
   */
  private static void applyConfigFlags(KubeProxyConfiguration c, ParsedFlags f) {
    ConfigCodec.setFields(c, givenFields(f, false));
  }

  /**
   * The logging flags. Without --config every flag value counts; over a file only the explicitly
   * set ones, and --vmodule's entries then come before the file's.
   */
  private static void applyLoggingFlags(KubeProxyConfiguration c, ParsedFlags f, boolean overFile) {
    ConfigCodec.setFields(c, givenFields(f, true));
    if (f.isSet("vmodule")) {
      List<KubeProxyConfiguration.VModuleItem> items = new ArrayList<>();
      for (VModule.Entry e : f.<List<VModule.Entry>>get("vmodule")) {
        items.add(new KubeProxyConfiguration.VModuleItem(e.pattern(), e.verbosity()));
      }
      if (overFile && c.logging.vmodule != null) {
        items.addAll(c.logging.vmodule);
      }
      c.logging.vmodule = items;
    }
  }

  /** The values of the given flags that name a field, by field path: the logging section's or the others. */
  private static Map<String, Object> givenFields(ParsedFlags f, boolean logging) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (FlagDef def : KubeProxyFlags.ALL) {
      if (def.field() != null && def.field().startsWith("logging.") == logging && f.isSet(def.name())) {
        values.put(def.field(), f.get(def.name()));
      }
    }
    return values;
  }

  /**
   * Puts upstream's single internal values into the section the final mode reads them from (a mode
   * that validation will reject reads iptables').
   */
  private static void storeInternalValues(KubeProxyConfiguration c, Duration sync, Duration minSync, boolean masqAll) {
    ProxyMode mode = ProxyMode.parse(c.mode).orElse(ProxyMode.IPTABLES);
    switch (mode) {
      case IPVS -> {
        c.ipvs.syncPeriod = sync;
        c.ipvs.minSyncPeriod = minSync;
      }
      case NFTABLES -> {
        c.nftables.syncPeriod = sync;
        c.nftables.minSyncPeriod = minSync;
      }
      case IPTABLES -> {
        c.iptables.syncPeriod = sync;
        c.iptables.minSyncPeriod = minSync;
      }
    }
    if (mode == ProxyMode.NFTABLES) {
      c.nftables.masqueradeAll = masqAll;
    } else {
      c.iptables.masqueradeAll = masqAll;
    }
  }

  /** upstream's addressFromDeprecatedFlags: port 0 disables, a bare IP gets the port. */
  static String addressFromDeprecated(String addr, int port) {
    if (port == 0) {
      return "";
    }
    return HostPortText.appendPortIfNeeded(addr, port);
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
