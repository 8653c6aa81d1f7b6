package dev.kubeproxy.explain;

import dev.kubeproxy.cli.CompleteException;
import dev.kubeproxy.cli.FlagParseException;
import dev.kubeproxy.cli.FlagParser;
import dev.kubeproxy.cli.KubeProxyOptions;
import dev.kubeproxy.cli.ParsedFlags;
import dev.kubeproxy.net.HostPort;
import dev.kubeproxy.logging.Log;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code kube-proxy explain NAMESPACE/NAME[:PORT] [--from IP --to IP:PORT] [agent flags]}: finds
 * the local agent's metrics address as the agent would (its flags, or --config), asks its
 * /debug/services for the text report, and prints it. Exit status 0 with a report, 1 otherwise.
 */
public final class ExplainCommand {
  static final String USAGE = "usage: kube-proxy explain NAMESPACE/NAME[:PORT] [--from IP --to IP:PORT]"
      + " [--metrics-bind-address IP:PORT | --config FILE] [--proxy-mode MODE]";
  private static final Duration TIMEOUT = Duration.ofSeconds(15);
  private static final PrintStream DISCARD = new PrintStream(java.io.OutputStream.nullOutputStream());

  private ExplainCommand() {}

  public static int run(List<String> args, PrintStream out, PrintStream err) {
    String service = null;
    String from = null;
    String to = null;
    List<String> agentArgs = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      String value;
      if ((value = flagValue(args, i, "from")) != null) {
        from = value;
        i += a.contains("=") ? 0 : 1;
      } else if ((value = flagValue(args, i, "to")) != null) {
        to = value;
        i += a.contains("=") ? 0 : 1;
      } else if (a.equals("-h") || a.equals("--help")) {
        out.println(USAGE);
        out.println("Prints what the local kube-proxy programs for a Service, and with --from/--to the path of"
            + " that packet. Any other kube-proxy flag is read as the agent reads it, to find its metrics address.");
        return 0;
      } else if (!a.startsWith("-") && service == null && (i == 0 || !needsValue(args.get(i - 1)))) {
        service = a;
      } else {
        agentArgs.add(a);
      }
    }
    if (service == null) {
      err.println("error: which Service? " + USAGE);
      return 1;
    }
    try {
      ServiceQuery.parse(service, from, to);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage() + "; " + USAGE);
      return 1;
    }
    KubeProxyOptions options;
    ParsedFlags flags;
    try {
      flags = FlagParser.parse(agentArgs);
      // reading the flags as the agent does logs what the agent would run; explain only wants the address
      Log.setOutputs(DISCARD, DISCARD);
      options = KubeProxyOptions.completeBlocking(flags);
    } catch (FlagParseException | CompleteException e) {
      err.println("error: " + e.getMessage());
      return 1;
    } finally {
      Log.setOutputs(System.err, System.err);
    }
    String bind = options.config().metricsBindAddress;
    if (bind == null || bind.isEmpty()) {
      err.println("error: the agent's metrics server is off (metricsBindAddress is empty); explain asks it, so"
          + " set metricsBindAddress (e.g. 127.0.0.1:10249)");
      return 1;
    }
    String base;
    try {
      base = "http://" + localAddress(HostPort.parse(bind));
    } catch (IllegalArgumentException e) {
      err.println("error: metricsBindAddress: " + e.getMessage());
      return 1;
    }
    StringBuilder url = new StringBuilder(base).append("/debug/services?format=text&service=").append(encode(service));
    if (from != null) {
      url.append("&from=").append(encode(from)).append("&to=").append(encode(to));
    }
    HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    try {
      if (flags.isSet("proxy-mode") || options.configFile() != null) {
        String agentMode = get(client, base + "/proxyMode").body().strip();
        String expected = options.config().mode; // completed: "" became iptables
        if (!agentMode.equals(expected)) {
          err.println("note: the agent at " + base + " runs " + agentMode + " mode, not " + expected
              + "; this is what it programs");
        }
      }
      HttpResponse<String> response = get(client, url.toString());
      if (response.statusCode() == 200) {
        out.print(response.body());
        return 0;
      }
      if (response.statusCode() == 404 && response.body().startsWith("kube-proxy")) {
        out.print(response.body()); // no such Service: the report lists close names
        return 1;
      }
      err.print("error: " + base + " answered " + response.statusCode() + ": " + response.body());
      return 1;
    } catch (ConnectException e) {
      err.println("error: no kube-proxy answers at " + base + " (connection refused). Is the agent running on this"
          + " node? Give explain the agent's --metrics-bind-address or --config so that it asks the right address.");
      return 1;
    } catch (HttpTimeoutException e) {
      err.println("error: the agent at " + base + " did not answer within " + TIMEOUT.toSeconds() + " s");
      return 1;
    } catch (IOException e) {
      err.println("error: asking the agent at " + base + " failed: " + e);
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  private static HttpResponse<String> get(HttpClient client, String url) throws IOException, InterruptedException {
    return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Where to reach a listen address from this node: an unspecified host means loopback. */
  static String localAddress(HostPort bind) {
    String host = bind.host();
    if (host.equals("0.0.0.0")) {
      host = "127.0.0.1";
    } else if (host.equals("::")) {
      host = "::1";
    }
    return new HostPort(host, bind.port()).toString();
  }

  /** The value of --NAME VALUE or --NAME=VALUE at position i, or null. */
  private static String flagValue(List<String> args, int i, String name) {
    String a = args.get(i);
    if (a.equals("--" + name) && i + 1 < args.size()) {
      return args.get(i + 1);
    }
    if (a.startsWith("--" + name + "=")) {
      return a.substring(name.length() + 3);
    }
    return null;
  }

  /** A flag written "--flag value" (not "--flag=value", not a boolean): the next word is its value. */
  private static boolean needsValue(String previous) {
    if (!previous.startsWith("-") || previous.contains("=")) {
      return false;
    }
    String name = previous.replaceFirst("^--?", "");
    return dev.kubeproxy.cli.KubeProxyFlags.ALL.stream().anyMatch(d -> d.name().equals(name)
        && d.type() != dev.kubeproxy.cli.FlagType.BOOL);
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
