package dev.kubeproxy.proxy.nftables;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A {@link TableReader} whose read runs on a thread of its own from the moment it is started, so
 * that the kernel's dumps (and the parsing of what they return) overlap the building of the desired
 * table and its comparison on the caller's thread: at 10,000 Services each side is ~0.3–0.4 s of
 * CPU, and a node has more than one core. What the read finds is handed over in batches through a
 * bounded queue, so it is never held whole. The forms are the underlying reader's.
 *
 * <p>The underlying reader is used by that thread alone until {@link #read} has returned or
 * {@link #close} has: the caller must not use it (or its socket) in between.
 */
final class TableReadAhead implements TableReader, AutoCloseable {
  private static final int BATCH = 256;
  /**
   * At most this many batches wait; the reading thread blocks when the caller falls behind. Few:
   * whatever waits when a young collection runs is copied to the old generation (with 64 batches
   * that was megabytes per collection at 10,000 Services, and a full collection every resync).
   */
  private static final int QUEUED_BATCHES = 8;
  private static final Consumer<TableVisitor> RESTART = v -> { };
  private static final Consumer<TableVisitor> END = v -> { };

  private final TableReader reader;
  private final BlockingQueue<List<Consumer<TableVisitor>>> queue = new ArrayBlockingQueue<>(QUEUED_BATCHES);
  /** Whether there is a table; or the read's failure. */
  private final CompletableFuture<Boolean> done = new CompletableFuture<>();
  private volatile boolean abandoned;

  private TableReadAhead(TableReader reader) {
    this.reader = reader;
  }

  /** Starts reading with reader on a new thread of this name. */
  static TableReadAhead start(TableReader reader, String threadName) {
    TableReadAhead ahead = new TableReadAhead(reader);
    Thread thread = new Thread(ahead::run, threadName);
    thread.setDaemon(true);
    thread.start();
    return ahead;
  }

  private void run() {
    try {
      Optional<Forwarder> read = reader.read(Forwarder::new);
      read.ifPresent(Forwarder::flush);
      done.complete(read.isPresent());
    } catch (Throwable e) {
      done.completeExceptionally(e);
    } finally {
      send(List.of(END));
    }
  }

  /**
   * Hands what was read to a visitor from visitors (a fresh one each time the reader started
   * over), waiting for it as it comes.
   *
   * @return the visitor of the read that held; empty when there is no table
   */
  @Override
  public <V extends TableVisitor> Optional<V> read(Supplier<V> visitors) throws NftablesException {
    V visitor = null;
    while (true) {
      List<Consumer<TableVisitor>> batch = take();
      for (Consumer<TableVisitor> event : batch) {
        if (event == RESTART) {
          visitor = visitors.get();
        } else if (event == END) {
          return outcome() ? Optional.of(visitor) : Optional.empty();
        } else {
          event.accept(visitor);
        }
      }
    }
  }

  /** Stops handing over what is read and waits for the reading thread to be done with the reader. */
  @Override
  public void close() {
    abandoned = true;
    // Frees the reading thread if it waits on a full queue: from now on it drops what it reads,
    // so at most the batch it was putting arrives, and the queue never fills again.
    queue.clear();
    try {
      done.handle((exists, failure) -> null).get(); // its outcome no longer matters, only that it ended
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e); // handle() does not fail
    }
  }

  private boolean outcome() throws NftablesException {
    try {
      return done.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NftablesException("interrupted while reading the table back", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof NftablesException n) {
        throw n;
      }
      throw new NftablesException("reading the table back failed: " + e.getCause(), e.getCause());
    }
  }

  private List<Consumer<TableVisitor>> take() throws NftablesException {
    try {
      return queue.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NftablesException("interrupted while reading the table back", e);
    }
  }

  private void send(List<Consumer<TableVisitor>> batch) {
    if (abandoned && batch.get(batch.size() - 1) != END) {
      return;
    }
    try {
      queue.put(batch);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Collects one attempt's findings into batches for the caller's visitor. */
  private final class Forwarder implements TableVisitor {
    private List<Consumer<TableVisitor>> batch = new ArrayList<>(BATCH);

    Forwarder() {
      batch.add(RESTART);
    }

    private void add(Consumer<TableVisitor> event) {
      batch.add(event);
      if (batch.size() == BATCH) {
        flush();
      }
    }

    void flush() {
      if (!batch.isEmpty()) {
        send(batch);
        batch = new ArrayList<>(BATCH);
      }
    }

    @Override
    public void chain(String name) {
      add(v -> v.chain(name));
    }

    @Override
    public void container(String name, boolean map) {
      add(v -> v.container(name, map));
    }

    @Override
    public void element(String key, String form, Supplier<Element> decoder) {
      add(v -> v.element(key, form, decoder));
    }

    @Override
    public void endContainer(String name) {
      add(v -> v.endContainer(name));
    }

    @Override
    public void rule(String chain, String form) {
      add(v -> v.rule(chain, form));
    }
  }

  @Override
  public String ruleForm(Rule rule) {
    return reader.ruleForm(rule);
  }

  @Override
  public void keyForm(Element element, FormArena out) {
    reader.keyForm(element, out);
  }

  @Override
  public void elementForm(Element element, FormArena out) {
    reader.elementForm(element, out);
  }
}
