package dev.kubeproxy.testapi;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The smallest OpenAPI v3 documents that let kubectl use server-side field validation instead
 * of downloading full schemas: the root index of group-versions, and per group-version a PATCH
 * operation per kind that declares the fieldValidation parameter. Schemas are not served, so
 * kubectl falls back to its built-in types for apply's strategic merge.
 */
final class OpenApiV3 {
  private OpenApiV3() {}

  static JsonObject document(String groupVersionPath, List<TestApiServer.ResourceType> types) {
    if (groupVersionPath.isEmpty()) {
      JsonObject paths = new JsonObject();
      types.stream().map(OpenApiV3::gvPath).distinct().forEach(p ->
          paths.put(p, new JsonObject().put("serverRelativeURL", "/openapi/v3/" + p + "?hash=1")));
      return new JsonObject().put("paths", paths);
    }
    JsonObject paths = new JsonObject();
    for (TestApiServer.ResourceType t : types) {
      if (!gvPath(t).equals(groupVersionPath)) {
        continue;
      }
      String itemPath = "/" + gvPath(t) + (t.namespaced() ? "/namespaces/{namespace}/" : "/") + t.plural() + "/{name}";
      JsonObject op = new JsonObject()
          .put("operationId", "patch" + t.kind())
          .put("x-kubernetes-group-version-kind", new JsonObject().put("group", t.group()).put("version", t.version()).put("kind", t.kind()))
          .put("x-kubernetes-action", "patch")
          .put("parameters", new JsonArray().add(new JsonObject().put("name", "fieldValidation").put("in", "query")
              .put("schema", new JsonObject().put("type", "string"))))
          .put("responses", new JsonObject().put("200", new JsonObject().put("description", "OK")));
      paths.put(itemPath, new JsonObject().put("patch", op));
    }
    return new JsonObject().put("openapi", "3.0.0")
        .put("info", new JsonObject().put("title", "Kubernetes").put("version", "v1.31.0"))
        .put("paths", paths).put("components", new JsonObject().put("schemas", new JsonObject()));
  }

  private static String gvPath(TestApiServer.ResourceType t) {
    return t.group().isEmpty() ? "api/" + t.version() : "apis/" + t.group() + "/" + t.version();
  }
}
