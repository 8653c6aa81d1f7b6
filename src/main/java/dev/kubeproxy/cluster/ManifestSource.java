package dev.kubeproxy.cluster;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.ClusterEvent.Kind;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.model.objects.Node;
import dev.kubeproxy.model.objects.ObjectMeta;
import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.model.objects.ClusterObject;
import io.kubernetes.client.openapi.ApiClient;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The --manifests DIR source (beyond upstream): the cluster objects come from YAML/JSON files in a
 * directory instead of the API. The directory is watched; after each (debounced) change its new
 * state is diffed against what was last sent, and the same upsert/delete messages as the
 * informers' go out, filtered by the same {@link Selection}s, with SYNCED for every kind after the
 * first read. A file that cannot be parsed is reported with its position and its last good content
 * stays in effect.
 */
final class ManifestSource implements ClusterSource {
  private static final long DEBOUNCE_MS = 200;

  private final Vertx vertx;
  private final Path dir;
  private final List<Selection> selections;
  private ClusterEventSink sink;
  private final io.vertx.core.Promise<Void> synced = io.vertx.core.Promise.promise();
  /** The last content of each file that parsed. */
  private final Map<Path, List<ClusterObject>> goodFiles = new TreeMap<>();
  /** What the bus was last told, per kind and key. */
  private final Map<Kind, Map<String, Object>> sent = new EnumMap<>(Kind.class);
  private WatchService watchService;
  private Thread watchThread;
  private long debounceTimer = -1;
  /**
   * The verticle's context: the watch thread is not a Vert.x thread, and runOnContext from it would
   * make a new context per event, so rescans would neither be ordered nor debounced together.
   */
  private Context context;
  /** A rescan is on a worker; changes seen meanwhile ask for one more after it (on the context). */
  private boolean rescanRunning;
  private boolean rescanAgain;

  ManifestSource(Vertx vertx, AgentOptions options) {
    this.vertx = vertx;
    this.dir = Path.of(options.manifestsDir());
    this.selections = Selection.watched(options);
    for (Kind k : Kind.values()) {
      sent.put(k, new HashMap<>());
    }
  }

  @Override
  public ApiClient apiClient() {
    return null;
  }

  @Override
  public boolean retryNodeLookup() {
    return false;
  }

  /**
   * The Node of this name in the directory: only the files whose text can hold a Node are parsed,
   * and only their Node documents decoded (the rest is read at start).
   */
  @Override
  public Node node(String name) throws IOException {
    if (!Files.isDirectory(dir)) {
      return null;
    }
    Node found = null;
    for (Path f : manifestFiles()) {
      if (!mayHoldNode(f)) {
        continue;
      }
      try {
        for (ClusterObject o : ManifestReader.read(f, java.util.Set.of("Node"))) {
          if (o instanceof Node n && name.equals(n.metadata().name())) {
            found = n;
          }
        }
      } catch (ManifestReader.ManifestException e) {
        Log.error("Skipping a bad manifest file", "err", e.getMessage());
      }
    }
    return found;
  }

  /**
   * Whether a file's text can hold a Node document: it names the kind, or escapes characters (which
   * could spell it). Searching the text is a fraction of parsing it; otherwise the Node lookup
   * would parse every object once more before the objects are read.
   */
  private static boolean mayHoldNode(Path file) {
    byte[] text;
    try {
      text = Files.readAllBytes(file); // bytes: UTF-8 spells ASCII as ASCII, and no decoding (half the time)
    } catch (IOException e) {
      return true; // unreadable: the parser says what is wrong
    }
    for (int i = 0; i < text.length; i++) {
      if (text[i] == '\\' || (text[i] == 'N' && i + 3 < text.length && text[i + 1] == 'o' && text[i + 2] == 'd'
          && text[i + 3] == 'e')) {
        return true;
      }
    }
    return false;
  }

  private List<Path> manifestFiles() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(ManifestReader::isManifest).filter(Files::isRegularFile).sorted().toList();
    }
  }

  @Override
  public Future<Void> synced() {
    return synced.future();
  }

  /** Reads the directory once, sends the state and SYNCED, then watches for changes. */
  @Override
  public Future<Void> start(ClusterEventSink sink) {
    this.sink = sink;
    this.context = vertx.getOrCreateContext();
    return vertx.<Void>executeBlocking(() -> {
      if (!Files.isDirectory(dir)) {
        throw new IOException("--manifests " + dir + " is not a readable directory");
      }
      Log.info("Reading cluster objects from the manifests directory", "dir", dir.toAbsolutePath());
      // watched from before the first read: a file changed while it is read is read again after it
      watchService = FileSystems.getDefault().newWatchService();
      dir.register(watchService, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
          StandardWatchEventKinds.ENTRY_DELETE);
      rescan();
      for (Selection selection : selections) {
        sink.synced(selection.kind());
      }
      watchThread = new Thread(this::watchLoop, "manifests-watch");
      watchThread.setDaemon(true);
      watchThread.start();
      return null;
    }).onSuccess(v -> synced.tryComplete());
  }

  @Override
  public void stop() {
    try {
      if (watchService != null) {
        watchService.close();
      }
    } catch (IOException e) {
      Log.v(2).info("Closing the manifests watch failed", "err", e.toString());
    }
  }

  private void watchLoop() {
    try {
      while (true) {
        WatchKey key = watchService.take();
        key.pollEvents();
        key.reset();
        context.runOnContext(v -> scheduleRescan());
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      // stopped
    }
  }

  /** Several writes (an editor's save, a ConfigMap swap) become one rescan. */
  private void scheduleRescan() {
    if (debounceTimer >= 0) {
      vertx.cancelTimer(debounceTimer);
    }
    debounceTimer = vertx.setTimer(DEBOUNCE_MS, id -> {
      debounceTimer = -1;
      runRescan();
    });
  }

  /** At most one rescan at a time and at most one waiting: a burst of changes costs two rescans, not one each. */
  private void runRescan() {
    if (rescanRunning) {
      rescanAgain = true;
      return;
    }
    rescanRunning = true;
    vertx.executeBlocking(() -> {
      rescan();
      return null;
    }, false).onComplete(ar -> {
      if (ar.failed()) {
        Log.error("Rescanning the manifests directory failed", "dir", dir, "err", ar.cause().toString());
      }
      rescanRunning = false;
      if (rescanAgain) {
        rescanAgain = false;
        runRescan();
      }
    });
  }

  /** Reads every manifest file and sends the difference to the last sent state. Runs on a worker, one at a time. */
  synchronized void rescan() throws IOException {
    List<Path> files = manifestFiles();
    goodFiles.keySet().retainAll(files);
    for (Path f : files) {
      try {
        goodFiles.put(f, ManifestReader.read(f, (kind, namespace, name, problem) -> sink.undecodable(
            switch (kind) {
              case "Service" -> Kind.SERVICE;
              case "EndpointSlice" -> Kind.ENDPOINT_SLICE;
              case "Node" -> Kind.NODE;
              default -> Kind.SERVICE_CIDR;
            },
            namespace.isEmpty() ? "default" : namespace, name, problem)));
      } catch (ManifestReader.ManifestException e) {
        Log.error(goodFiles.containsKey(f) ? "Skipping a bad manifest file; its last good content stays in effect"
            : "Skipping a bad manifest file", "err", e.getMessage());
      }
    }
    Map<Kind, Map<String, Object>> desired = new EnumMap<>(Kind.class);
    for (Kind k : Kind.values()) {
      desired.put(k, new LinkedHashMap<>());
    }
    for (Map.Entry<Path, List<ClusterObject>> e : goodFiles.entrySet()) {
      for (ClusterObject o : e.getValue()) {
        Kind kind = kindOf(o);
        ObjectMeta meta = o.metadata();
        if (selections.stream().noneMatch(s -> s.kind() == kind && s.matches(o))) {
          continue;
        }
        String key = meta.key();
        if (desired.get(kind).put(key, o) != null) {
          Log.warn("Object defined more than once in the manifests directory; the later file wins",
              "kind", kind, "key", key, "file", e.getKey().getFileName());
        }
      }
    }
    for (Kind kind : Kind.values()) {
      Map<String, Object> before = sent.get(kind);
      Map<String, Object> after = desired.get(kind);
      for (Map.Entry<String, Object> e : before.entrySet()) {
        if (!after.containsKey(e.getKey())) {
          sink.delete(kind, e.getKey(), e.getValue());
        }
      }
      for (Map.Entry<String, Object> e : after.entrySet()) {
        if (!Objects.equals(before.get(e.getKey()), e.getValue())) {
          sink.upsert(kind, e.getKey(), e.getValue());
        }
      }
      sent.put(kind, after);
    }
  }

  private static Kind kindOf(ClusterObject o) {
    if (o instanceof Service) return Kind.SERVICE;
    if (o instanceof EndpointSlice) return Kind.ENDPOINT_SLICE;
    if (o instanceof Node) return Kind.NODE;
    return Kind.SERVICE_CIDR;
  }
}
