package dev.kubeproxy.cluster;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.config.KubeProxyConfiguration.ClientConnection;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import java.io.IOException;
import java.io.Reader;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * Builds the Kubernetes API client the way upstream does (cmd/kube-proxy/app/server.go createClient):
 * the kubeconfig at exactly clientConnection.kubeconfig, --master overriding its server, or the
 * in-cluster configuration when neither is given. Blocking (reads files): call it off the event loop.
 */
public final class ApiClients {
  private ApiClients() {}

  /** Thrown when no client can be built from the given configuration; the message says why. */
  public static final class ClientConfigException extends Exception {
    public ClientConfigException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  public static ApiClient create(AgentOptions options) throws ClientConfigException {
    ClientConnection conn = options.config().clientConnection;
    String kubeconfig = conn.kubeconfig == null ? "" : conn.kubeconfig;
    String master = options.master() == null ? "" : options.master();
    ApiClient client;
    try {
      if (kubeconfig.isEmpty() && master.isEmpty()) {
        Log.warn("Neither kubeconfig file nor master URL was specified, falling back to in-cluster config");
        client = ClientBuilder.cluster().build();
      } else if (!kubeconfig.isEmpty()) {
        KubeConfig kc;
        try (Reader r = Files.newBufferedReader(Path.of(kubeconfig), StandardCharsets.UTF_8)) {
          kc = KubeConfig.loadKubeConfig(r);
        }
        kc.setFile(Path.of(kubeconfig).toAbsolutePath().toFile());
        client = ClientBuilder.kubeconfig(kc).build();
        if (!master.isEmpty()) {
          client.setBasePath(master);
        }
      } else {
        client = new ClientBuilder().setBasePath(master).build();
      }
    } catch (IOException | RuntimeException e) {
      String source = kubeconfig.isEmpty() && master.isEmpty() ? "the in-cluster configuration (service account token and CA, KUBERNETES_SERVICE_HOST/PORT)"
          : !kubeconfig.isEmpty() ? "kubeconfig " + kubeconfig : "master URL " + master;
      throw new ClientConfigException("cannot build the API client from " + source + ": " + e, e);
    }
    noteContentType(conn);
    // Watches stay open for minutes: no read timeout. Requests are limited to qps/burst as client-go does.
    client.setHttpClient(client.getHttpClient().newBuilder()
        .readTimeout(0, TimeUnit.MILLISECONDS)
        .connectTimeout(10, TimeUnit.SECONDS)
        .addInterceptor(new RateLimitInterceptor(conn.qps, conn.burst))
        .build());
    return client;
  }

  /**
   * A JSON request to this API path, authenticated as client-java's generated APIs do.
   *
   * @param body the request's JSON as bytes, or null
   */
  static okhttp3.Call call(ApiClient client, String method, String path, List<Pair> query, byte[] body)
      throws ApiException {
    Map<String, String> headers = new HashMap<>(Map.of("Accept", "application/json"));
    if (body != null) {
      headers.put("Content-Type", "application/json");
    }
    return client.buildCall(client.getBasePath(), path, method, query, List.of(), body, headers, new HashMap<>(),
        new HashMap<>(), new String[] {"BearerToken"}, null);
  }

  /** The failure an unsuccessful answer stands for, with its status, headers and body (the API's Status). */
  static ApiException failure(okhttp3.Response response) throws IOException {
    okhttp3.ResponseBody body = response.body();
    return new ApiException(response.code(), response.headers().toMultimap(), body == null ? null : body.string());
  }

  private static void noteContentType(ClientConnection conn) {
    String ct = (conn.contentType == null ? "" : conn.contentType) + " "
        + (conn.acceptContentTypes == null ? "" : conn.acceptContentTypes);
    if (ct.contains("protobuf")) { // once: the agent builds one client
      Log.info("The API client speaks JSON; the configured protobuf content type is not used",
          "contentType", conn.contentType, "acceptContentTypes", conn.acceptContentTypes);
    }
  }

  /**
   * A one-line description of an API failure that names the server and the cause, for the log
   * line written at each retry.
   */
  public static String describe(String server, Throwable error) {
    // Walk to the innermost cause that says something: an HTTP status, or the network error.
    Throwable t = error;
    while (true) {
      if (t instanceof ApiException ae && ae.getCode() != 0) {
        return switch (ae.getCode()) {
          case 401 -> "the API server " + server + " rejected the credentials (401 Unauthorized): check the token or client certificate in the kubeconfig";
          case 403 -> "the API server " + server + " denied access (403 Forbidden): the kube-proxy identity needs RBAC permission for this request" + body(ae);
          default -> "the API server " + server + " answered " + ae.getCode() + body(ae);
        };
      }
      if (t instanceof ConnectException || t instanceof SocketTimeoutException) {
        return "cannot reach the API server " + server + ": " + t.getMessage();
      }
      if (t instanceof UnknownHostException) {
        return "cannot resolve the API server host of " + server + ": " + t.getMessage();
      }
      if (t instanceof SSLException) {
        return "TLS handshake with the API server " + server + " failed: " + t.getMessage();
      }
      if (t.getCause() == null || t.getCause() == t) {
        break;
      }
      t = t.getCause();
    }
    String detail = t instanceof ApiException ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + ": " + t.getMessage();
    return "request to the API server " + server + " failed: " + detail;
  }

  private static String body(ApiException ae) {
    String b = ae.getResponseBody();
    return b == null || b.isBlank() ? "" : ": " + b.strip();
  }

  /** Duration helper for callers that log retry delays. */
  static String seconds(Duration d) {
    return String.format("%.1fs", d.toMillis() / 1000.0);
  }
}
