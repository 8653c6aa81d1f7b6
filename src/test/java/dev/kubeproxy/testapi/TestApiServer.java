package dev.kubeproxy.testapi;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.JSON;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * An in-process Kubernetes API server for tests (TESTING.md "The Kubernetes API in tests"): an
 * in-memory store with one global resourceVersion; list and watch (newline-delimited JSON over
 * chunked HTTP, replay from a resourceVersion, an ERROR event with 410 Gone when it is too old,
 * timeoutSeconds, bookmarks tolerated; lists streamed, paged with limit/continue); label selectors with ADDED/DELETED transitions when
 * labels change; field selectors on metadata.name and metadata.namespace (and spec.clusterIP, spec.type
 * of Services); POST, PUT,
 * merge-PATCH and DELETE with conflict answers; the discovery documents kubectl reads. Only the
 * kinds kube-proxy uses (and namespaces, for kubectl) are served.
 *
 * <p>The store survives {@link #stop()}, so a test can stop and restart the server on the same
 * port like an API server whose etcd keeps the data. Test hooks: {@link #dropAllWatches()},
 * {@link #expireHistory()} and {@link #refuseFieldLabel} (a server older than a field label).
 */
public final class TestApiServer {

  /** A served resource: where it lives in the URL space and what it is called. */
  public record ResourceType(String group, String version, String plural, String singular, String kind,
                             boolean namespaced, List<String> shortNames) {
    String apiVersion() {
      return group.isEmpty() ? version : group + "/" + version;
    }

    String groupVersion() {
      return apiVersion();
    }
  }

  public static final List<ResourceType> TYPES = List.of(
      new ResourceType("", "v1", "services", "service", "Service", true, List.of("svc")),
      new ResourceType("", "v1", "nodes", "node", "Node", false, List.of("no")),
      new ResourceType("", "v1", "namespaces", "namespace", "Namespace", false, List.of("ns")),
      new ResourceType("discovery.k8s.io", "v1", "endpointslices", "endpointslice", "EndpointSlice", true, List.of()),
      new ResourceType("events.k8s.io", "v1", "events", "event", "Event", true, List.of("ev")),
      new ResourceType("networking.k8s.io", "v1", "servicecidrs", "servicecidr", "ServiceCIDR", false, List.of()));

  private record Change(long rv, ResourceType type, String eventType, JsonObject oldObject, JsonObject newObject) {}

  private final class Watcher {
    final ResourceType type;
    final String namespace;
    final Selector labels;
    final Selector fields;
    final HttpServerResponse response;
    long timer = -1;

    Watcher(ResourceType type, String namespace, Selector labels, Selector fields, HttpServerResponse response) {
      this.type = type;
      this.namespace = namespace;
      this.labels = labels;
      this.fields = fields;
      this.response = response;
    }

    boolean matches(JsonObject o) {
      if (o == null) {
        return false;
      }
      String ns = o.getJsonObject("metadata").getString("namespace", "");
      return (namespace == null || namespace.equals(ns)) && labels.matchesLabels(o) && fields.matchesFields(o);
    }

    /** Sends a change as this watcher sees it: label changes turn updates into adds or deletes. */
    void deliver(Change c) {
      if (c.type != type) {
        return;
      }
      boolean before = matches(c.oldObject);
      boolean after = matches(c.newObject);
      switch (c.eventType) {
        case "ADDED" -> { if (after) send("ADDED", c.newObject); }
        case "MODIFIED" -> {
          if (before && after) send("MODIFIED", c.newObject);
          else if (after) send("ADDED", c.newObject);
          else if (before) send("DELETED", c.newObject);
        }
        case "DELETED" -> { if (before) send("DELETED", c.oldObject); }
        default -> throw new IllegalStateException(c.eventType);
      }
    }

    void send(String eventType, JsonObject object) {
      if (!response.ended() && !response.closed()) {
        response.write(new JsonObject().put("type", eventType).put("object", object).encode() + "\n");
      }
    }

    void close() {
      watchers.remove(this);
      if (timer >= 0) {
        vertx.cancelTimer(timer);
      }
      if (!response.ended() && !response.closed()) {
        response.end();
      }
    }
  }

  private final Vertx vertx;
  private final Map<ResourceType, TreeMap<String, JsonObject>> store = new LinkedHashMap<>();
  /**
   * Each stored object's JSON, encoded when it is stored: stored objects are replaced, never changed
   * in place, and a list of tens of thousands of them is otherwise encoded again for every client,
   * on the cores of the agent under test (a real API server's own work, on its own machines).
   * Guarded by this server, as the store is.
   */
  private final Map<JsonObject, Buffer> encoded = new IdentityHashMap<>();
  private final ArrayDeque<Change> history = new ArrayDeque<>();
  private final Set<Watcher> watchers = ConcurrentHashMap.newKeySet();
  private final int historyLimit;
  private long resourceVersion = 100;
  /** A watch from a resourceVersion below this gets 410 Gone (the history it needs is gone). */
  private long compactedBelow = 0;
  private HttpServer server;
  private int port;
  private volatile String requiredToken;
  /** Field labels answered 400 "field label not supported", as a server older than them does: "Kind field". */
  private final Set<String> refusedFieldLabels = ConcurrentHashMap.newKeySet();

  public TestApiServer(Vertx vertx) {
    this(vertx, 200_000);
  }

  public TestApiServer(Vertx vertx, int historyLimit) {
    this.vertx = vertx;
    this.historyLimit = historyLimit;
    TYPES.forEach(t -> store.put(t, new TreeMap<>()));
    for (String ns : List.of("default", "kube-system")) {
      upsert(new JsonObject().put("apiVersion", "v1").put("kind", "Namespace")
          .put("metadata", new JsonObject().put("name", ns)));
    }
  }

  // ---------------------------------------------------------------- lifecycle

  /** Listens on 127.0.0.1:port (0 picks a free port; a restart can reuse the previous one). */
  public Future<Integer> start(int wantedPort) {
    server = vertx.createHttpServer();
    server.requestHandler(this::handle);
    return server.listen(wantedPort, "127.0.0.1").map(s -> {
      port = s.actualPort();
      return port;
    });
  }

  /** Closes the listener and every open watch; the stored objects stay for a later start. */
  public Future<Void> stop() {
    List.copyOf(watchers).forEach(w -> w.response.reset());
    watchers.clear();
    return server == null ? Future.succeededFuture() : server.close();
  }

  public int port() {
    return port;
  }

  public String url() {
    return "http://127.0.0.1:" + port;
  }

  /** Writes a kubeconfig for this server (plain HTTP, no credentials) and returns its path. */
  public Path writeKubeconfig(Path dir) throws java.io.IOException {
    Path file = dir.resolve("kubeconfig-" + port);
    String text = "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: " + url()
        + "\ncontexts:\n- name: test\n  context:\n    cluster: test\n    user: test\n    namespace: default\n"
        + "current-context: test\nusers:\n- name: test\n  user: {}\n";
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  // ---------------------------------------------------------------- test hooks

  /** Abruptly closes every watch connection, as when the API server or a proxy drops them. */
  public synchronized void dropAllWatches() {
    List.copyOf(watchers).forEach(w -> {
      watchers.remove(w);
      if (w.timer >= 0) vertx.cancelTimer(w.timer);
      w.response.reset();
    });
  }

  /** Forgets the change history: a watch from any resourceVersion up to now gets 410 Gone. */
  public synchronized void expireHistory() {
    history.clear();
    compactedBelow = resourceVersion + 1;
  }

  /**
   * Test hook: from now on answer field selectors over this field of this kind with 400 "field
   * label not supported", as an API server does that predates the field (spec.clusterIP on
   * Services before 1.31).
   */
  public void refuseFieldLabel(String kind, String field) {
    refusedFieldLabels.add(kind + " " + field);
  }

  /** Test hook: from now on answer 401 Unauthorized unless the request carries this bearer token (null: open). */
  public void requireToken(String token) {
    requiredToken = token;
  }

  public synchronized int watchCount() {
    return watchers.size();
  }

  public synchronized long resourceVersion() {
    return resourceVersion;
  }

  // ---------------------------------------------------------------- direct store access

  /** Creates or replaces an object (kind and apiVersion inferred for client-java models). */
  public JsonObject upsert(KubernetesObject object) {
    JsonObject json = new JsonObject(JSON_CODEC.serialize(object));
    if (json.getString("kind") == null) {
      String simple = object.getClass().getSimpleName();
      for (ResourceType t : TYPES) {
        if (simple.endsWith(t.kind) && simple.length() - t.kind.length() <= 8) {
          json.put("kind", t.kind).put("apiVersion", t.apiVersion());
        }
      }
    }
    return upsert(json);
  }

  /** Creates or replaces an object given as JSON with apiVersion and kind. */
  public synchronized JsonObject upsert(JsonObject object) {
    ResourceType type = typeOf(object.getString("apiVersion"), object.getString("kind"));
    JsonObject meta = object.getJsonObject("metadata");
    if (type.namespaced && meta.getString("namespace") == null) {
      meta.put("namespace", "default");
    }
    String key = key(type, meta.getString("namespace"), meta.getString("name"));
    JsonObject old = store.get(type).get(key);
    return old == null ? createStored(type, key, object) : replaceStored(type, key, old, object);
  }

  public synchronized boolean delete(String kind, String namespace, String name) {
    ResourceType type = TYPES.stream().filter(t -> t.kind.equals(kind)).findFirst().orElseThrow();
    return deleteStored(type, key(type, namespace, name)) != null;
  }

  public synchronized JsonObject get(String kind, String namespace, String name) {
    ResourceType type = TYPES.stream().filter(t -> t.kind.equals(kind)).findFirst().orElseThrow();
    JsonObject o = store.get(type).get(key(type, namespace, name));
    return o == null ? null : o.copy();
  }

  public synchronized List<JsonObject> list(String kind) {
    ResourceType type = TYPES.stream().filter(t -> t.kind.equals(kind)).findFirst().orElseThrow();
    return store.get(type).values().stream().map(JsonObject::copy).toList();
  }

  private static final JSON JSON_CODEC = new JSON();

  private static ResourceType typeOf(String apiVersion, String kind) {
    return TYPES.stream().filter(t -> t.apiVersion().equals(apiVersion) && t.kind.equals(kind)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("not served: " + apiVersion + " " + kind));
  }

  private static String key(ResourceType type, String namespace, String name) {
    return type.namespaced ? namespace + "/" + name : name;
  }

  private JsonObject createStored(ResourceType type, String key, JsonObject object) {
    JsonObject o = object.copy();
    o.put("apiVersion", type.apiVersion()).put("kind", type.kind);
    JsonObject meta = o.getJsonObject("metadata");
    meta.put("uid", UUID.randomUUID().toString());
    meta.put("creationTimestamp", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    meta.put("resourceVersion", Long.toString(++resourceVersion));
    store.get(type).put(key, o);
    encoded.put(o, o.toBuffer());
    record(new Change(resourceVersion, type, "ADDED", null, o));
    return o.copy();
  }

  private JsonObject replaceStored(ResourceType type, String key, JsonObject old, JsonObject object) {
    JsonObject o = object.copy();
    o.put("apiVersion", type.apiVersion()).put("kind", type.kind);
    JsonObject meta = o.getJsonObject("metadata");
    JsonObject oldMeta = old.getJsonObject("metadata");
    meta.put("uid", oldMeta.getString("uid"));
    meta.put("creationTimestamp", oldMeta.getString("creationTimestamp"));
    meta.put("resourceVersion", Long.toString(++resourceVersion));
    store.get(type).put(key, o);
    encoded.remove(old);
    encoded.put(o, o.toBuffer());
    record(new Change(resourceVersion, type, "MODIFIED", old, o));
    return o.copy();
  }

  private JsonObject deleteStored(ResourceType type, String key) {
    JsonObject old = store.get(type).remove(key);
    if (old == null) {
      return null;
    }
    encoded.remove(old);
    JsonObject gone = old.copy();
    gone.getJsonObject("metadata").put("resourceVersion", Long.toString(++resourceVersion));
    record(new Change(resourceVersion, type, "DELETED", gone, null));
    return gone;
  }

  private void record(Change change) {
    history.addLast(change);
    while (history.size() > historyLimit) {
      Change dropped = history.removeFirst();
      compactedBelow = dropped.rv;
    }
    for (Watcher w : watchers) {
      w.deliver(change);
    }
  }

  // ---------------------------------------------------------------- HTTP

  private void handle(HttpServerRequest req) {
    String token = requiredToken;
    if (token != null && !("Bearer " + token).equals(req.getHeader("Authorization"))) {
      status(req.response(), 401, "Unauthorized", "Unauthorized");
      return;
    }
    req.body().onComplete(ar -> {
      try {
        route(req, ar.succeeded() ? ar.result() : Buffer.buffer());
      } catch (ApiError e) {
        status(req.response(), e.code, e.reason, e.getMessage());
      } catch (RuntimeException e) {
        status(req.response(), 500, "InternalError", String.valueOf(e));
      }
    });
  }

  private static final class ApiError extends RuntimeException {
    final int code;
    final String reason;

    ApiError(int code, String reason, String message) {
      super(message);
      this.code = code;
      this.reason = reason;
    }
  }

  private void route(HttpServerRequest req, Buffer body) {
    String path = req.path();
    List<String> parts = new ArrayList<>(List.of(path.replaceAll("^/+|/+$", "").split("/")));
    if (path.equals("/version")) {
      json(req.response(), 200, new JsonObject().put("major", "1").put("minor", "31").put("gitVersion", "v1.31.0")
          .put("platform", "linux/amd64").put("goVersion", "go1.22.5").put("compiler", "gc"));
      return;
    }
    if (path.equals("/api")) {
      json(req.response(), 200, new JsonObject().put("kind", "APIVersions").put("versions", new JsonArray().add("v1"))
          .put("serverAddressByClientCIDRs", new JsonArray().add(new JsonObject()
              .put("clientCIDR", "0.0.0.0/0").put("serverAddress", "127.0.0.1:" + port))));
      return;
    }
    if (path.equals("/apis")) {
      json(req.response(), 200, groupList());
      return;
    }
    if (path.startsWith("/openapi/v3")) {
      json(req.response(), 200, OpenApiV3.document(path.substring("/openapi/v3".length()).replaceAll("^/", ""), TYPES));
      return;
    }
    String group;
    String version;
    List<String> rest;
    if (parts.size() >= 2 && parts.get(0).equals("api")) {
      group = "";
      version = parts.get(1);
      rest = parts.subList(2, parts.size());
    } else if (parts.size() >= 3 && parts.get(0).equals("apis")) {
      group = parts.get(1);
      version = parts.get(2);
      rest = parts.subList(3, parts.size());
    } else {
      throw new ApiError(404, "NotFound", "the server could not find the requested resource");
    }
    if (rest.isEmpty()) {
      json(req.response(), 200, resourceList(group, version));
      return;
    }
    String namespace = null;
    if (rest.size() >= 3 && rest.get(0).equals("namespaces")) {
      namespace = rest.get(1);
      rest = rest.subList(2, rest.size());
    }
    String plural = rest.get(0);
    ResourceType type = TYPES.stream()
        .filter(t -> t.group.equals(group) && t.version.equals(version) && t.plural.equals(plural))
        .findFirst().orElseThrow(() -> new ApiError(404, "NotFound", "the server could not find the requested resource"));
    if (namespace != null && !type.namespaced) {
      throw new ApiError(404, "NotFound", "the server could not find the requested resource");
    }
    String name = rest.size() > 1 ? rest.get(1) : null;
    if (rest.size() > 2) {
      throw new ApiError(404, "NotFound", "subresources are not served");
    }
    HttpMethod m = req.method();
    if (name == null) {
      if (m.equals(HttpMethod.GET)) {
        if ("true".equals(req.getParam("watch")) || "1".equals(req.getParam("watch"))) {
          watch(req, type, namespace);
        } else {
          list(req, type, namespace);
        }
      } else if (m.equals(HttpMethod.POST)) {
        create(req, type, namespace, body);
      } else {
        throw new ApiError(405, "MethodNotAllowed", "method " + m + " not served on collections");
      }
      return;
    }
    String key = key(type, namespace, name);
    synchronized (this) {
      JsonObject current = store.get(type).get(key);
      if (m.equals(HttpMethod.GET)) {
        json(req.response(), 200, found(current, type, name));
      } else if (m.equals(HttpMethod.PUT)) {
        found(current, type, name);
        JsonObject o = parse(body);
        checkIdentity(o, type, namespace, name);
        checkVersion(o, current, type, name);
        json(req.response(), 200, replaceStored(type, key, current, o));
      } else if (m.equals(HttpMethod.PATCH)) {
        found(current, type, name);
        String ct = String.valueOf(req.getHeader("Content-Type"));
        if (!ct.contains("merge-patch") && !ct.contains("strategic-merge-patch")) {
          throw new ApiError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media types include: application/merge-patch+json, application/strategic-merge-patch+json");
        }
        JsonObject patch = parse(body);
        checkVersion(patch, current, type, name);
        JsonObject merged = (JsonObject) mergePatch(current.copy(), patch);
        checkIdentity(merged, type, namespace, name);
        json(req.response(), 200, replaceStored(type, key, current, merged));
      } else if (m.equals(HttpMethod.DELETE)) {
        found(current, type, name);
        json(req.response(), 200, deleteStored(type, key));
      } else {
        throw new ApiError(405, "MethodNotAllowed", "method " + m + " not served");
      }
    }
  }

  private JsonObject found(JsonObject current, ResourceType type, String name) {
    if (current == null) {
      throw new ApiError(404, "NotFound", type.plural + (type.group.isEmpty() ? "" : "." + type.group)
          + " \"" + name + "\" not found");
    }
    return current;
  }

  private static JsonObject parse(Buffer body) {
    try {
      return new JsonObject(body.toString(StandardCharsets.UTF_8));
    } catch (DecodeException | ClassCastException e) {
      throw new ApiError(400, "BadRequest", "the request body is not a JSON object: " + e.getMessage());
    }
  }

  private static void checkIdentity(JsonObject o, ResourceType type, String namespace, String name) {
    JsonObject meta = o.getJsonObject("metadata");
    if (meta == null) {
      throw new ApiError(400, "BadRequest", "metadata is required");
    }
    if (name != null && meta.getString("name") != null && !name.equals(meta.getString("name"))) {
      throw new ApiError(400, "BadRequest", "the name of the object (" + meta.getString("name")
          + ") does not match the name on the URL (" + name + ")");
    }
    if (type.namespaced) {
      String ns = meta.getString("namespace");
      if (ns != null && namespace != null && !ns.equals(namespace)) {
        throw new ApiError(400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request");
      }
      meta.put("namespace", namespace != null ? namespace : ns != null ? ns : "default");
    }
    if (name != null) {
      meta.put("name", name);
    }
  }

  private static void checkVersion(JsonObject o, JsonObject current, ResourceType type, String name) {
    String wanted = o.getJsonObject("metadata", new JsonObject()).getString("resourceVersion");
    String have = current.getJsonObject("metadata").getString("resourceVersion");
    if (wanted != null && !wanted.isEmpty() && !wanted.equals(have)) {
      throw new ApiError(409, "Conflict", "Operation cannot be fulfilled on " + type.plural
          + (type.group.isEmpty() ? "" : "." + type.group) + " \"" + name
          + "\": the object has been modified; please apply your changes to the latest version and try again");
    }
  }

  /** RFC 7386 merge patch; strategic-merge directives ($patch, $setElementOrder/...) are dropped. */
  private static Object mergePatch(Object target, Object patch) {
    if (!(patch instanceof JsonObject p)) {
      return patch;
    }
    JsonObject t = target instanceof JsonObject to ? to : new JsonObject();
    for (String k : p.fieldNames()) {
      if (k.startsWith("$")) {
        continue;
      }
      Object v = p.getValue(k);
      if (v == null) {
        t.remove(k);
      } else {
        t.put(k, mergePatch(t.getValue(k), v));
      }
    }
    return t;
  }

  private void create(HttpServerRequest req, ResourceType type, String namespace, Buffer body) {
    JsonObject o = parse(body);
    JsonObject meta = o.getJsonObject("metadata");
    if (meta == null) {
      throw new ApiError(400, "BadRequest", "metadata is required");
    }
    if (meta.getString("name") == null && meta.getString("generateName") != null) {
      meta.put("name", meta.getString("generateName") + Long.toString(ThreadLocalRandom.current().nextLong(1L << 25, 1L << 30), 36));
    }
    if (meta.getString("name") == null || meta.getString("name").isEmpty()) {
      throw new ApiError(422, "Invalid", type.kind + " is invalid: metadata.name: Required value: name or generateName is required");
    }
    checkIdentity(o, type, namespace, null);
    String key = key(type, meta.getString("namespace"), meta.getString("name"));
    synchronized (this) {
      if (store.get(type).containsKey(key)) {
        throw new ApiError(409, "AlreadyExists", type.plural + (type.group.isEmpty() ? "" : "." + type.group)
            + " \"" + meta.getString("name") + "\" already exists");
      }
      json(req.response(), 201, createStored(type, key, o));
    }
  }

  private Selector selector(HttpServerRequest req, String param, ResourceType fieldsOf) {
    Selector s;
    try {
      s = Selector.parse(req.getParam(param));
    } catch (IllegalArgumentException e) {
      throw new ApiError(400, "BadRequest", "unable to parse requirement: " + e.getMessage());
    }
    if (fieldsOf != null) {
      for (String key : s.keys()) {
        if (refusedFieldLabels.contains(fieldsOf.kind() + " " + key)) {
          throw new ApiError(400, "BadRequest", "field label not supported: " + key);
        }
      }
    }
    try {
      if (fieldsOf != null) {
        s.checkFieldKeys(fieldsOf.kind());
      }
      return s;
    } catch (IllegalArgumentException e) {
      throw new ApiError(400, "BadRequest", "unable to parse requirement: " + e.getMessage());
    }
  }

  private void list(HttpServerRequest req, ResourceType type, String namespace) {
    Selector labels = selector(req, "labelSelector", null);
    Selector fields = selector(req, "fieldSelector", type);
    int limit = limit(req.getParam("limit"));
    String token = req.getParam("continue");
    List<Buffer> items = new ArrayList<>();
    JsonObject meta = new JsonObject();
    synchronized (this) {
      long listedAt = resourceVersion;
      Map<String, JsonObject> objects = store.get(type);
      if (token != null && !token.isEmpty()) {
        ListAnswer.Continue from = ListAnswer.Continue.decode(token);
        if (from == null) {
          throw new ApiError(400, "BadRequest", "continue key is not valid: start a new list without the continue parameter");
        }
        if (from.resourceVersion() < compactedBelow) {
          throw new ApiError(410, "Expired", "The provided continue parameter is too old to display a consistent list"
              + " result. You can start a new list without the continue parameter.");
        }
        // Later pages show objects as they are now; a watch from the first page's version replays the difference.
        listedAt = from.resourceVersion();
        objects = store.get(type).tailMap(from.afterKey(), false);
      }
      String lastKey = null;
      for (Map.Entry<String, JsonObject> e : objects.entrySet()) {
        JsonObject o = e.getValue();
        String ns = o.getJsonObject("metadata").getString("namespace", "");
        if ((namespace == null || namespace.equals(ns)) && labels.matchesLabels(o) && fields.matchesFields(o)) {
          if (limit > 0 && items.size() == limit) {
            meta.put("continue", new ListAnswer.Continue(listedAt, lastKey).encode());
            break;
          }
          items.add(encoded.get(o));
          lastKey = e.getKey();
        }
      }
      meta.put("resourceVersion", Long.toString(listedAt));
    }
    ListAnswer.stream(req.response(), new JsonObject().put("kind", type.kind + "List")
        .put("apiVersion", type.apiVersion()).put("metadata", meta), items);
  }

  private static int limit(String param) {
    if (param == null || param.isEmpty()) {
      return 0;
    }
    try {
      int limit = Integer.parseInt(param);
      if (limit >= 0) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw new ApiError(400, "BadRequest", "limit must be a non-negative integer, got \"" + param + "\"");
  }

  private synchronized void watch(HttpServerRequest req, ResourceType type, String namespace) {
    Selector labels = selector(req, "labelSelector", null);
    Selector fields = selector(req, "fieldSelector", type);
    String rvParam = req.getParam("resourceVersion");
    HttpServerResponse resp = req.response();
    resp.setChunked(true).putHeader("Content-Type", "application/json").setStatusCode(200);
    Watcher w = new Watcher(type, namespace, labels, fields, resp);
    if (rvParam == null || rvParam.isEmpty() || rvParam.equals("0")) {
      for (JsonObject o : store.get(type).values()) {
        if (w.matches(o)) {
          w.send("ADDED", o);
        }
      }
    } else {
      long from;
      try {
        from = Long.parseLong(rvParam);
      } catch (NumberFormatException e) {
        throw new ApiError(400, "BadRequest", "invalid resource version \"" + rvParam + "\"");
      }
      if (from < compactedBelow) {
        resp.write(new JsonObject().put("type", "ERROR").put("object", statusJson(410, "Expired",
            "too old resource version: " + from + " (" + compactedBelow + ")")).encode() + "\n");
        resp.end();
        return;
      }
      for (Change c : history) {
        if (c.rv > from) {
          w.deliver(c);
        }
      }
    }
    watchers.add(w);
    String timeout = req.getParam("timeoutSeconds");
    if (timeout != null && !timeout.isEmpty() && Long.parseLong(timeout) > 0) {
      w.timer = vertx.setTimer(Long.parseLong(timeout) * 1000, id -> {
        synchronized (this) {
          w.timer = -1;
          w.close();
        }
      });
    }
    resp.closeHandler(v -> {
      synchronized (this) {
        watchers.remove(w);
        if (w.timer >= 0) vertx.cancelTimer(w.timer);
      }
    });
  }

  private JsonObject groupList() {
    JsonArray groups = new JsonArray();
    TYPES.stream().map(ResourceType::group).filter(g -> !g.isEmpty()).distinct().forEach(g -> {
      String v = TYPES.stream().filter(t -> t.group.equals(g)).findFirst().orElseThrow().version;
      JsonObject gv = new JsonObject().put("groupVersion", g + "/" + v).put("version", v);
      groups.add(new JsonObject().put("name", g).put("versions", new JsonArray().add(gv)).put("preferredVersion", gv));
    });
    return new JsonObject().put("kind", "APIGroupList").put("apiVersion", "v1").put("groups", groups);
  }

  private static JsonObject resourceList(String group, String version) {
    JsonArray resources = new JsonArray();
    TYPES.stream().filter(t -> t.group.equals(group) && t.version.equals(version)).forEach(t -> resources.add(
        new JsonObject().put("name", t.plural).put("singularName", t.singular).put("namespaced", t.namespaced)
            .put("kind", t.kind).put("shortNames", new JsonArray(t.shortNames))
            .put("verbs", new JsonArray(List.of("create", "delete", "get", "list", "patch", "update", "watch")))));
    if (resources.isEmpty()) {
      throw new ApiError(404, "NotFound", "the server could not find the requested resource");
    }
    return new JsonObject().put("kind", "APIResourceList").put("apiVersion", "v1")
        .put("groupVersion", group.isEmpty() ? version : group + "/" + version).put("resources", resources);
  }

  private static JsonObject statusJson(int code, String reason, String message) {
    return new JsonObject().put("kind", "Status").put("apiVersion", "v1").put("metadata", new JsonObject())
        .put("status", "Failure").put("message", message).put("reason", reason).put("code", code);
  }

  private static void status(HttpServerResponse resp, int code, String reason, String message) {
    json(resp, code, statusJson(code, reason, message));
  }

  private static void json(HttpServerResponse resp, int code, JsonObject body) {
    if (!resp.ended()) {
      resp.setStatusCode(code).putHeader("Content-Type", "application/json").end(body.encode());
    }
  }
}
