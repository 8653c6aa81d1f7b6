package dev.kubeproxy.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import io.kubernetes.client.openapi.ApiException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

@Unit
class RateLimitInterceptorTest {
  @Test
  void burstIsFreeThenRequestsWaitForTokens() {
    RateLimitInterceptor limiter = new RateLimitInterceptor(10, 3);
    assertEquals(0, limiter.reserve());
    assertEquals(0, limiter.reserve());
    assertEquals(0, limiter.reserve());
    long wait = limiter.reserve();
    assertTrue(wait > 50_000_000L && wait <= 100_000_000L, "fourth request waits about 1/qps: " + wait);
    long next = limiter.reserve();
    assertTrue(next > wait, "a queued request waits longer: " + next);
  }

  @Test
  void describeNamesServerAndCause() {
    assertEquals("the API server https://10.0.0.1:6443 rejected the credentials (401 Unauthorized): check the token or client certificate in the kubeconfig",
        ApiClients.describe("https://10.0.0.1:6443", new ApiException(401, "Unauthorized")));
    assertEquals("cannot reach the API server https://10.0.0.1:6443: Connection refused",
        ApiClients.describe("https://10.0.0.1:6443", new ApiException(new ConnectException("Connection refused"))));
  }
}
