package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.FormArena;
import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.TableReader;
import dev.kubeproxy.backend.nftables.objects.TableVisitor;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A {@link TableReader} whose read runs on a thread of its own from the moment it is started, so
 * that the kernel's dumps (and the parsing of what they return) overlap the building of the desired
 * table and its comparison on the caller's thread: both sides cost about the same CPU, and a node
 * has more than one core. What the read finds is handed over in batches
 * ({@link VisitBatch}) from a bounded pool, so it is never held whole. The forms are the underlying
 * reader's.
 *
 * <p>The underlying reader is used by that thread alone until {@link #read} has returned or
 * {@link #close} has: the caller must not use it (or its socket) in between.
 */
final class TableReadAhead implements TableReader, AutoCloseable {
  /**
   * At most this many batches exist: enough for the read to run a whole large set ahead while the
   * caller builds that set's desired forms; with few batches the reading thread waits most of a
   * resync.
   */
  private static final int MAX_BATCHES = 128;

  /**
   * The batches that the reads of one table reuse, one read at a time: made as a read first needs
   * them, and kept (each read's own would live long enough to be promoted, a full collection every
   * few resyncs of a large table).
   */
  static final class Batches {
    private final List<VisitBatch> made = new ArrayList<>();

    /** How many batches the reads have needed so far. */
    int made() {
      return made.size();
    }
  }

  private final TableReader reader;
  private final Batches batches;
  /** Batches the caller is done with, the last returned first (a small table keeps reusing the same few). */
  private final BlockingDeque<VisitBatch> free;
  private final BlockingQueue<VisitBatch> queue = new ArrayBlockingQueue<>(MAX_BATCHES + 1);
  /** Whether there is a table; or the read's failure. Completed last: the reading thread is then done. */
  private final CompletableFuture<Boolean> done = new CompletableFuture<>();
  private volatile boolean abandoned;
  /** The batch the reading thread fills. */
  private VisitBatch filling;

  private TableReadAhead(TableReader reader, Batches batches) {
    this.reader = reader;
    this.batches = batches;
    this.free = new LinkedBlockingDeque<>(batches.made);
  }

  /**
   * Starts reading with reader on a new thread of this name.
   *
   * @param batches the batches of this table's reads; no other read of them may be under way
   */
  static TableReadAhead start(TableReader reader, String threadName, Batches batches) {
    TableReadAhead ahead = new TableReadAhead(reader, batches);
    Thread thread = new Thread(ahead::run, threadName);
    thread.setDaemon(true);
    thread.start();
    return ahead;
  }

  private void run() {
    boolean exists = false;
    Throwable failure = null;
    try {
      filling = nextFree();
      exists = reader.read(Forwarder::new).isPresent();
    } catch (Throwable e) {
      failure = e;
    }
    if (filling == null) { // no free batch came (interrupted): the caller still needs the end
      filling = new VisitBatch();
    }
    filling.last = true;
    send();
    if (failure == null) {
      done.complete(exists);
    } else {
      done.completeExceptionally(failure);
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
      VisitBatch batch = take();
      if (batch.restarts) {
        visitor = visitors.get();
      }
      batch.replay(visitor);
      boolean last = batch.last;
      batch.clear();
      free.offerFirst(batch);
      if (last) {
        return outcome() ? Optional.of(visitor) : Optional.empty();
      }
    }
  }

  /** Stops handing over what is read and waits for the reading thread to be done with the reader. */
  @Override
  public void close() {
    abandoned = true; // from now on the reading thread drops what it reads, and takes back what waits
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

  private VisitBatch take() throws NftablesException {
    try {
      return queue.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NftablesException("interrupted while reading the table back", e);
    }
  }

  /** Hands the filling batch over (or drops its visits once abandoned) and goes on with a free one. */
  private void send() {
    if (abandoned) {
      filling.clear();
      return;
    }
    boolean last = filling.last;
    queue.add(filling); // never full: it holds at most every batch there is, and an end made without one
    filling = null;
    if (!last) {
      filling = nextFree();
    }
  }

  /** A batch to fill: a free one, a new one while there are fewer than the most, or the next one freed. */
  private VisitBatch nextFree() {
    try {
      while (true) {
        VisitBatch b = free.pollFirst();
        if (b == null && batches.made.size() < MAX_BATCHES) {
          b = new VisitBatch();
          batches.made.add(b);
        }
        if (b == null && abandoned) {
          b = queue.poll(); // nobody takes them any more
        }
        if (b == null) {
          b = free.pollFirst(10, TimeUnit.MILLISECONDS); // bounded: to notice being abandoned
        }
        if (b != null) {
          b.clear();
          return b;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the table back", e);
    }
  }

  /** Writes one attempt's findings into batches for the caller's visitor. */
  private final class Forwarder implements TableVisitor {
    Forwarder() {
      filling.clear(); // what an earlier attempt left unsent is of no use
      filling.restarts = true;
    }

    private void add(Consumer<TableVisitor> event) {
      filling.add(event);
      sendIfFull();
    }

    private void sendIfFull() {
      if (filling.full()) {
        send();
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
    public void element(char[] forms, int keyStart, int keyEnd, int end) {
      filling.element(forms, keyStart, keyEnd, end);
      sendIfFull();
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

  @Override
  public Element decode(String container, boolean map, char[] forms, int start, int end) {
    return reader.decode(container, map, forms, start, end);
  }
}
