package dev.kubeproxy.cluster;

import java.io.IOException;
import okhttp3.Interceptor;
import okhttp3.Response;

/**
 * client-go's token bucket for API requests (clientConnection.qps and burst): a request takes a
 * token, waiting for one to refill when the bucket is empty. qps 0 means client-go's default of
 * 5 (burst 10); a negative qps disables the limit.
 */
final class RateLimitInterceptor implements Interceptor {
  private final double qps;
  private final double burst;
  private double tokens;
  private long lastNanos;

  RateLimitInterceptor(float qps, int burst) {
    this.qps = qps == 0 ? 5 : qps;
    this.burst = burst <= 0 ? 10 : burst;
    this.tokens = this.burst;
    this.lastNanos = System.nanoTime();
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    if (qps > 0) {
      long wait = reserve();
      if (wait > 0) {
        try {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while waiting for the client rate limiter", e);
        }
      }
    }
    return chain.proceed(chain.request());
  }

  /** Takes one token; returns how many nanoseconds the caller must wait for it. */
  synchronized long reserve() {
    long now = System.nanoTime();
    tokens = Math.min(burst, tokens + (now - lastNanos) / 1e9 * qps);
    lastNanos = now;
    tokens -= 1;
    return tokens >= 0 ? 0 : (long) (-tokens / qps * 1e9);
  }
}
