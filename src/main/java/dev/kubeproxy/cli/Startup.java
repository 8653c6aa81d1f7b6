package dev.kubeproxy.cli;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.config.ConfigCodec;
import dev.kubeproxy.config.ConfigValidation;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.gotext.GoQuote;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.logging.LogFormat;
import dev.kubeproxy.logging.VModule;
import io.vertx.core.AsyncResult;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Everything before the verticles (cmd/kube-proxy/app/server.go NewProxyCommand's RunE): parse the flags,
 * --version/--help, Complete, initialise logging, dump the flags at -v=1, Validate, --write-config-to, the
 * node name. {@link #parse} runs before Vert.x exists (Main: --version, --help and a bad flag exit
 * without it); {@link #prepare} runs in {@code AgentVerticle} once its {@code ConfigVerticle} has read
 * the --config file, because Complete, Validate and --write-config-to all need the file. It never exits
 * the process itself.
 */
public final class Startup {
  private Startup() {}

  /** What the command line asks before anything is built: an exit, or a run with these flags. */
  public sealed interface Parsed permits Exit, Flags {}

  /** What to do next: exit with a status, or run the agent with these options. */
  public sealed interface Outcome permits Exit, Run {}

  public record Exit(int status) implements Outcome, Parsed {}

  public record Flags(ParsedFlags flags) implements Parsed {
    /** --config, or null. */
    public String configFile() {
      String file = flags.getString("config");
      return file == null || file.isEmpty() ? null : file;
    }
  }

  public record Run(AgentOptions options, KubeProxyOptions completed) implements Outcome {}

  /**
   * Parses the flags and answers --version and --help, before any Vert.x instance exists: an {@link
   * Exit} (a bad flag is printed here), or the {@link Flags} to {@link #prepare} a run with.
   */
  public static Parsed parse(List<String> args, PrintStream stdout, PrintStream stderr) {
    ParsedFlags flags;
    try {
      flags = FlagParser.parse(args);
    } catch (FlagParseException e) {
      stderr.println("Error: " + e.getMessage());
      return new Exit(1);
    }
    flags.warnings().forEach(stderr::println);

    String version = flags.getString("version");
    if (flags.isSet("version")) {
      switch (version.toLowerCase(Locale.ROOT)) {
        case "true", "1", "t" -> {
          stdout.println(Version.line());
          return new Exit(0);
        }
        case "raw" -> {
          stdout.println(Version.raw());
          return new Exit(0);
        }
        case "false", "0", "f" -> { }
        default -> { } // reported as the version: Version.reported
      }
    }
    if (flags.getBool("help")) {
      stdout.print(HelpPrinter.render());
      return new Exit(0);
    }
    return new Flags(flags);
  }

  /**
   * Prepares the run over the --config file as the agent's {@code ConfigVerticle} read it ({@code
   * file}, complete: the decoded file, null without --config, or the read's failure). Never throws:
   * every error is an {@link Exit} with status 1, logged here.
   */
  public static Outcome prepare(Flags parsed, AsyncResult<ConfigCodec.Decoded> file) {
    ParsedFlags flags = parsed.flags();
    KubeProxyOptions options;
    try {
      options = KubeProxyOptions.complete(flags, file);
    } catch (CompleteException e) {
      return failed("failed complete: " + e.getMessage());
    }
    return afterComplete(flags, options);
  }

  /**
   * Logging, the flag dump, Validate, --write-config-to and the node name (cmd/kube-proxy/app/server.go
   * NewProxyCommand).
   */
  private static Outcome afterComplete(ParsedFlags flags, KubeProxyOptions options) {
    KubeProxyConfiguration config = options.config();

    // initialize logging: the configured format, verbosity and vmodule from here on
    List<String> loggingErrors = ConfigValidation.validateLogging(config.logging, options.gates());
    if (!loggingErrors.isEmpty()) {
      return failed("initialize logging: " + ConfigValidation.aggregate(loggingErrors));
    }
    configureLogging(config.logging);
    for (FlagDef def : sortedFlags()) {
      Log.plain(1, "FLAG: --" + def.name() + "=" + GoQuote.quote(flags.displayValue(def)));
    }

    List<String> errors = ConfigValidation.validate(config, options.gates());
    if (!errors.isEmpty()) {
      return failed("failed validate: " + ConfigValidation.aggregate(errors));
    }

    if (options.writeConfigTo() != null) {
      try {
        Files.writeString(Path.of(options.writeConfigTo()), ConfigCodec.encodeYaml(config), StandardCharsets.UTF_8);
      } catch (IOException e) {
        return failed("open " + options.writeConfigTo() + ": " + e.getMessage());
      }
      Log.info("Wrote configuration", "file", options.writeConfigTo());
      return new Exit(0);
    }

    String hostname;
    try {
      hostname = nodeName(config.hostnameOverride);
    } catch (IllegalStateException e) {
      Log.error("Error running ProxyServer", "err", e.getMessage());
      return failed(e.getMessage());
    }
    java.util.SortedMap<String, String> flagValues = new java.util.TreeMap<>(); // for /flagz
    for (FlagDef def : sortedFlags()) {
      flagValues.put(def.name(), flags.displayValue(def));
    }
    AgentOptions agent = new AgentOptions(config, options.master(), hostname,
        options.manifestsDir(), options.dryRun(), options.cleanup(), options.initOnly(), flagValues);
    return new Run(agent, options);
  }

  private static Outcome failed(String err) {
    Log.error("command failed", "err", err);
    return new Exit(1);
  }

  /** Applies the configuration's logging section to {@link Log}. */
  public static void configureLogging(KubeProxyConfiguration.Logging l) {
    List<VModule.Entry> vmodule = new ArrayList<>();
    if (l.vmodule != null) {
      for (KubeProxyConfiguration.VModuleItem item : l.vmodule) {
        vmodule.add(new VModule.Entry(item.filePattern, item.verbosity));
      }
    }
    LogFormat format = LogFormat.parse(l.format);
    boolean split = format == LogFormat.JSON ? l.options.json.splitStream : l.options.text.splitStream;
    Log.configure(format, l.verbosity, vmodule, split);
    if (split) {
      Log.setOutputs(System.out, System.err);
    }
  }

  /**
   * The node name (pkg/util/node/node.go GetHostname): the override, or the OS hostname; trimmed, lower-cased.
   *
   * @throws IllegalStateException "empty hostname is invalid" or "couldn't determine hostname: ..."
   */
  public static String nodeName(String hostnameOverride) {
    String name = hostnameOverride;
    if (name == null || name.isEmpty()) {
      name = osHostname();
    }
    name = name.strip();
    if (name.isEmpty()) {
      throw new IllegalStateException("empty hostname is invalid");
    }
    return name.toLowerCase(Locale.ROOT);
  }

  /** The kernel's node name, as Go's os.Hostname reads it (no DNS lookup). */
  static String osHostname() {
    try {
      return Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
    } catch (IOException e) {
      String env = System.getenv("HOSTNAME");
      if (env != null && !env.isBlank()) {
        return env;
      }
      throw new IllegalStateException("couldn't determine hostname: " + e.getMessage());
    }
  }

  private static List<FlagDef> sortedFlags() {
    List<FlagDef> all = new ArrayList<>(KubeProxyFlags.ALL);
    all.sort((a, b) -> a.name().compareTo(b.name()));
    return all;
  }

}
