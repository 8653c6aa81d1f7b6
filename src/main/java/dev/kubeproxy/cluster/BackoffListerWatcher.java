package dev.kubeproxy.cluster;

import dev.kubeproxy.logging.Log;
import com.google.gson.JsonElement;
import com.google.gson.reflect.TypeToken;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.CallGenerator;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;

/**
 * The list and watch calls of one informer, with client-go's reflector backoff between failed
 * lists (0.8 s doubling up to 30 s; client-java alone would relist every second) and one log line
 * per failure that names the API server and the cause. Items are decoded one by one
 * ({@link ItemDecoder}): one that does not fit its model is left out and reported, never failing
 * the list or the watch.
 */
final class BackoffListerWatcher<T extends KubernetesObject, L extends KubernetesListObject>
    implements ListerWatcher<T, L> {
  private static final long INITIAL_BACKOFF_MS = 800;
  private static final long MAX_BACKOFF_MS = 30_000;

  private final ApiClient client;
  private final String what;
  private final CallGenerator calls;
  private final Class<T> type;
  private final Class<L> listType;
  private final ItemDecoder<T> decoder;
  private long nextBackoffMs;
  private volatile boolean stopped;

  BackoffListerWatcher(ApiClient client, String what, CallGenerator calls, Class<T> type, Class<L> listType,
      ItemDecoder.Reporter undecodable) {
    this.client = client;
    this.decoder = new ItemDecoder<>(client.getJSON().getGson(), type, undecodable);
    this.what = what;
    this.calls = calls;
    this.type = type;
    this.listType = listType;
  }

  void stop() {
    stopped = true;
  }

  @Override
  public L list(CallGeneratorParams params) throws ApiException {
    if (nextBackoffMs > 0) {
      sleep(nextBackoffMs);
    }
    if (stopped) {
      throw new ApiException("informer stopped");
    }
    try {
      L result = listItemWise(calls.generate(params));
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
      Watch<JsonElement> raw = Watch.createWatch(client, calls.generate(params),
          TypeToken.getParameterized(Watch.Response.class, JsonElement.class).getType());
      return new ItemWiseWatch<>(raw, decoder);
    } catch (ApiException | RuntimeException e) {
      if (stopped) {
        throw e;
      }
      Log.warn("Failed to watch " + what + "; relisting", "err", ApiClients.describe(client.getBasePath(), e));
      throw e;
    }
  }

  private L listItemWise(okhttp3.Call call) throws ApiException {
    try (okhttp3.Response response = call.execute()) {
      okhttp3.ResponseBody body = response.body();
      if (!response.isSuccessful()) {
        throw new ApiException(response.code(), response.headers().toMultimap(), body == null ? null : body.string());
      }
      if (body == null) {
        throw new ApiException("empty list answer");
      }
      return decoder.list(body.charStream(), listType);
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
