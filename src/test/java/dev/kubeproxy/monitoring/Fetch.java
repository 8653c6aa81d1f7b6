package dev.kubeproxy.monitoring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * GETs each URL given and prints "== STATUS URL" then the body: run with `ip netns exec` to reach
 * an agent's loopback ports inside its namespace. A URL that does not answer prints "== 0 URL".
 * HTTP/1.1 only, as Prometheus and the kubelet ask.
 */
public final class Fetch {
  static final String MARK = "== ";

  private Fetch() {}

  public static void main(String[] args) throws Exception {
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
    for (String url : args) {
      try {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString());
        System.out.println(MARK + r.statusCode() + " " + url);
        System.out.println(r.body());
      } catch (java.io.IOException e) {
        System.out.println(MARK + "0 " + url);
      }
    }
  }
}
