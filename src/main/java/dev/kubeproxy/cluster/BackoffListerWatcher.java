package dev.kubeproxy.cluster;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.model.objects.ClusterObject;
import dev.kubeproxy.model.objects.ObjectList;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.CallGenerator;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watchable;

/**
 * The list and watch calls of one informer, with client-go's reflector backoff between failed
 * lists (0.8 s doubling up to 30 s; client-java alone would relist every second) and one log line
 * per failure that names the API server and the cause. Items are decoded one by one
 * ({@link ItemDecoder}): one that does not fit its model is left out and reported, never failing
 * the list or the watch. A refused field selector is dropped and applied here instead
 * ({@link LocalFieldFilter}), and the list repeated at once.
 */
final class BackoffListerWatcher<T extends ClusterObject> implements ListerWatcher<T, ObjectList<T>> {
  private static final long INITIAL_BACKOFF_MS = 800;
  private static final long MAX_BACKOFF_MS = 30_000;

  private final ApiClient client;
  private final String what;
  private final CallGenerator calls;
  private final ItemDecoder<T> decoder;
  private final LocalFieldFilter fieldFilter;
  private long nextBackoffMs;
  private volatile boolean stopped;

  BackoffListerWatcher(ApiClient client, String what, CallGenerator calls, ItemDecoder<T> decoder,
      LocalFieldFilter fieldFilter) {
    this.client = client;
    this.fieldFilter = fieldFilter;
    this.decoder = decoder;
    this.what = what;
    this.calls = calls;
  }

  void stop() {
    stopped = true;
  }

  @Override
  public ObjectList<T> list(CallGeneratorParams params) throws ApiException {
    if (nextBackoffMs > 0) {
      sleep(nextBackoffMs);
    }
    if (stopped) {
      throw new ApiException("informer stopped");
    }
    try {
      ObjectList<T> result;
      try {
        result = listItemWise(calls.generate(params));
      } catch (ApiException e) {
        if (!fieldFilter.refused(e, client.getBasePath())) {
          throw e;
        }
        result = listItemWise(calls.generate(params));
      }
      if (nextBackoffMs > 0) {
        Log.info("Listed " + what + " again", "server", client.getBasePath());
      }
      nextBackoffMs = 0;
      return result;
    } catch (ApiException | RuntimeException e) {
      if (stopped) {
        throw e;
      }
      nextBackoffMs = nextBackoffMs == 0 ? INITIAL_BACKOFF_MS : Math.min(MAX_BACKOFF_MS, nextBackoffMs * 2);
      Log.error("Failed to list " + what, "err", ApiClients.describe(client.getBasePath(), e),
          "retryIn", String.format("%.1fs", (nextBackoffMs + 1000) / 1000.0));
      throw e;
    }
  }

  @Override
  public Watchable<T> watch(CallGeneratorParams params) throws ApiException {
    try {
      okhttp3.Response response = calls.generate(params).execute();
      if (!response.isSuccessful()) {
        try (response) {
          throw ApiClients.failure(response);
        }
      }
      return new ItemWiseWatch<>(response, decoder);
    } catch (java.io.IOException e) {
      if (stopped) {
        throw new ApiException(e);
      }
      Log.warn("Failed to watch " + what + "; relisting", "err", ApiClients.describe(client.getBasePath(), e));
      throw new ApiException(e);
    } catch (ApiException | RuntimeException e) {
      if (stopped) {
        throw e;
      }
      if (!(e instanceof ApiException ae && fieldFilter.refused(ae, client.getBasePath()))) {
        Log.warn("Failed to watch " + what + "; relisting", "err", ApiClients.describe(client.getBasePath(), e));
      }
      throw e;
    }
  }

  private ObjectList<T> listItemWise(okhttp3.Call call) throws ApiException {
    try (okhttp3.Response response = call.execute()) {
      if (!response.isSuccessful()) {
        throw ApiClients.failure(response);
      }
      okhttp3.ResponseBody body = response.body();
      if (body == null) {
        throw new ApiException("empty list answer");
      }
      return decoder.list(body.byteStream());
    } catch (java.io.IOException e) {
      throw new ApiException(e);
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
