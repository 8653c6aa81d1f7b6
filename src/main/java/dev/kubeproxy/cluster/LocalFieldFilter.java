package dev.kubeproxy.cluster;

import dev.kubeproxy.model.objects.ClusterObject;
import dev.kubeproxy.logging.Log;
import io.kubernetes.client.openapi.ApiException;

/**
 * The field selector of one watched kind, sent to the API server until it refuses it. A server
 * older than the selector (spec.clusterIP on Services is served since 1.31) answers 400 "field
 * label not supported" to every list; retrying the same list would never program anything, so the
 * kind is then listed and watched without the field selector and this agent applies it to each
 * object itself ({@link Selection#matches}), with one warning.
 */
final class LocalFieldFilter {
  private final Selection selection;
  private final String what;
  private volatile boolean local;

  /** @param what the watched resource, for the warning ("Services") */
  LocalFieldFilter(Selection selection, String what) {
    this.selection = selection;
    this.what = what;
  }

  /** The field selector to send: the selection's, or "" once the server has refused it. */
  String fieldSelector() {
    return local ? "" : selection.fieldSelector();
  }

  /** Whether an object the server sent is one the selection wants (all of them until the fallback). */
  boolean keeps(ClusterObject object) {
    return !local || selection.matches(object);
  }

  /**
   * Switches to filtering here when this failure is the server refusing the field selector.
   *
   * @return whether it did (the request is then worth repeating at once)
   */
  boolean refused(ApiException e, String server) {
    if (local || selection.fieldSelector().isEmpty() || e.getCode() != 400 || e.getResponseBody() == null
        || !e.getResponseBody().contains("field label not supported")) {
      return false;
    }
    local = true;
    Log.warn("The API server does not support the field selector; listing " + what
        + " without it and leaving out here the objects it excludes", "server", server,
        "fieldSelector", selection.fieldSelector());
    return true;
  }
}
