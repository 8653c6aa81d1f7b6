package dev.kubeproxy.packaging;

import dev.kubeproxy.packaging.FootprintBenchmark.Netns;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * From outside the agent: when each churn change is in the namespace's kernel rules. A change is
 * expected with the time it was written to the API server (epoch microseconds) and resolved when
 * its trace appears: a replaced endpoint's address, a created Service's cluster IP, a deleted
 * Service's cluster IP gone.
 */
abstract class KernelWatch implements AutoCloseable {
  /** What a change leaves in the kernel, and when it was written. */
  record Expected(String kind, int service, String ip, long writtenMicros) {}

  private final Map<String, Expected> pending = new LinkedHashMap<>();
  private final Map<String, List<Double>> latencies = new TreeMap<>();
  private int superseded;
  private int createdAndDeleted;

  static long nowMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
  }

  synchronized void expect(Expected e) {
    pending.put(key(e.kind.equals("delete"), e.ip), e);
  }

  private static String key(boolean deleted, String ip) {
    return (deleted ? "del " : "add ") + ip;
  }

  /** The change with this key is visible since {@code atMicros}. */
  protected synchronized void resolved(String key, long atMicros) {
    Expected e = pending.remove(key);
    if (e != null) {
      latencies.computeIfAbsent(e.kind, k -> new ArrayList<>()).add(Math.max(0, atMicros - e.writtenMicros) / 1000.0);
      if (e.kind.equals("endpoints")) {
        // Earlier replacements of this Service that a later one overtook before a sync never reach the kernel.
        superseded += pending.values().size();
        pending.values().removeIf(p -> p.kind.equals("endpoints") && p.service == e.service
            && p.writtenMicros < e.writtenMicros);
        superseded -= pending.values().size();
      } else if (e.kind.equals("delete") && pending.remove(addKey(e.ip)) != null) {
        createdAndDeleted++; // both between two syncs: the Service never reached the kernel
      }
    }
  }

  protected synchronized List<Expected> pending() {
    return new ArrayList<>(pending.values());
  }

  protected static String addKey(String ip) {
    return key(false, ip);
  }

  protected static String deleteKey(String ip) {
    return key(true, ip);
  }

  /** Per kind of change: "n, p50 / p99 / max ms", and how many were never seen. */
  synchronized List<String> summary() {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, List<Double>> e : latencies.entrySet()) {
      List<Double> v = new ArrayList<>(e.getValue());
      Collections.sort(v);
      out.add(String.format(Locale.ROOT, "%s: n=%d p50 %.0f p99 %.0f max %.0f ms", e.getKey(), v.size(),
          v.get(v.size() / 2), v.get(Math.min(v.size() - 1, (int) Math.ceil(v.size() * 0.99) - 1)), v.get(v.size() - 1)));
    }
    if (superseded > 0) {
      out.add(superseded + " endpoint replacements overtaken by the next one of their Service before a sync");
    }
    if (createdAndDeleted > 0) {
      out.add(createdAndDeleted + " Services created and deleted between two syncs");
    }
    if (!pending.isEmpty()) {
      out.add(pending.size() + " never seen");
    }
    return out;
  }

  /** What the figures' resolution is (how a change was seen). */
  abstract String method();

  /**
   * nftables: {@code nft monitor} in the namespace prints every committed object as the kernel
   * announces it, so each change is timed at its commit (plus the pipe) at no cost to the agent;
   * polling would list the table over and over. The endpoint's address is in its chain's name,
   * the cluster IP in the service-ips element.
   */
  static final class Nftables extends KernelWatch {
    private static final Pattern IPV4 = Pattern.compile("(?<![0-9.])(\\d+\\.\\d+\\.\\d+\\.\\d+)(?![0-9])");
    private final Process monitor;
    private final Thread reader;

    Nftables(Netns ns, java.nio.file.Path raw) throws IOException, InterruptedException {
      monitor = new ProcessBuilder("ip", "netns", "exec", ns.name, "sh", "-c", "nft monitor 2>&1 | tee " + raw).start();
      reader = new Thread(() -> {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(monitor.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line; (line = in.readLine()) != null; ) {
            long at = nowMicros();
            if (!line.startsWith("add ") && !line.startsWith("delete ") && !line.startsWith("#") && !line.startsWith("W: ")
                && !line.startsWith("\t") && !line.startsWith(" ") && !line.equals("}") && other.size() < 5) {
              other.add(line); // nft's own complaints (a lost event, a full socket buffer)
            }
            if (line.contains(PROBE_TABLE)) {
              listening.countDown();
            }
            boolean deleted = line.startsWith("delete");
            Matcher m = IPV4.matcher(line);
            while (m.find()) {
              resolved(deleted ? deleteKey(m.group(1)) : addKey(m.group(1)), at);
            }
          }
        } catch (IOException e) {
          // the monitor was stopped
        }
      }, "nft-monitor");
      reader.setDaemon(true);
      reader.start();
      // nft monitor first reads the whole ruleset (a minute at tens of thousands of Services on a
      // loaded machine) and only then prints: a table of its own, added and deleted, says when it
      // listens. That commit makes the agent's next periodic check reconcile its table once.
      // Added and deleted in turn, once a second: a commit before the monitor subscribed is never printed.
      long start = System.nanoTime();
      boolean exists = false;
      while (!listening.await(1, java.util.concurrent.TimeUnit.SECONDS)) {
        if (System.nanoTime() - start > java.util.concurrent.TimeUnit.MINUTES.toNanos(2) || !monitor.isAlive()) {
          other.add("nft monitor did not start listening within 2 minutes (it reads the whole ruleset first)");
          break;
        }
        FootprintBenchmark.run(List.of("ip", "netns", "exec", ns.name, "nft", exists ? "delete" : "add", "table", "ip",
            PROBE_TABLE), null);
        exists = !exists;
      }
      if (exists) {
        FootprintBenchmark.run(List.of("ip", "netns", "exec", ns.name, "nft", "delete", "table", "ip", PROBE_TABLE), null);
      }
      readySeconds = (System.nanoTime() - start) / 1e9;
    }

    private static final String PROBE_TABLE = "kp-bench-monitor-probe";
    private final java.util.concurrent.CountDownLatch listening = new java.util.concurrent.CountDownLatch(1);
    private double readySeconds;
    private final List<String> other = Collections.synchronizedList(new ArrayList<>());

    @Override
    String method() {
      return String.format(Locale.ROOT, "nft monitor, listening %.1f s after its start:", readySeconds)
          + " timed at the kernel's announcement of the commit"
          + (other.isEmpty() ? "" : "; nft also said: " + String.join(" | ", other));
    }

    @Override
    public void close() throws InterruptedException {
      if (!monitor.isAlive()) {
        other.add("nft monitor had exited " + monitor.exitValue());
      }
      monitor.descendants().forEach(ProcessHandle::destroy);
      monitor.destroy();
      reader.join(5000);
    }
  }

  /**
   * iptables: legacy iptables announces nothing, and every read copies the whole table out of the
   * kernel, so one read a round serves every pending change: iptables-legacy-save of the nat
   * table, filtered to the chain declarations inside the namespace (a per-chain {@code -S} would
   * copy the table once per change and take the xtables lock the agent needs). A change first seen
   * in a round is dated by the first restore that ended since the previous round began (the restore
   * tool's own end, from its wrapper), else by the round's start: the resolution is one round.
   */
  static final class Iptables extends KernelWatch {
    private final Netns ns;
    private final RestoreTimes restores;
    private final Thread poller;
    private volatile boolean stop;
    private long rounds;
    private long roundMicros;

    Iptables(Netns ns, RestoreTimes restores) {
      this.ns = ns;
      this.restores = restores;
      poller = new Thread(this::poll, "iptables-poll");
      poller.setDaemon(true);
      poller.start();
    }

    private void poll() {
      long previous = nowMicros();
      while (!stop) {
        long start = nowMicros();
        try {
          String out = ns.exec("sh", "-c", "iptables-legacy-save -t nat | grep -o '^:KUBE-S[EV][PC]-[A-Z0-9]*'").stdout();
          Set<String> chains = new HashSet<>();
          for (String line : out.split("\n")) {
            chains.add(line.startsWith(":") ? line.substring(1) : line);
          }
          long at = restores.firstEndBetween(previous, start);
          long seen = at > 0 ? at : start;
          for (Expected e : pending()) {
            boolean visible = switch (e.kind()) {
              case "endpoints" -> chains.contains(BenchCluster.endpointChain(e.service(), e.ip()));
              case "create" -> chains.contains(BenchCluster.serviceChain(e.service()));
              // gone once it was there: before its creation was seen, absence says nothing
              default -> !chains.contains(BenchCluster.serviceChain(e.service()))
                  && pending().stream().noneMatch(p -> p.kind().equals("create") && p.service() == e.service());
            };
            if (visible) {
              resolved(e.kind().equals("delete") ? deleteKey(e.ip()) : addKey(e.ip()), seen);
            }
          }
          synchronized (this) {
            rounds++;
            roundMicros += nowMicros() - start;
          }
          previous = start;
          Thread.sleep(50);
        } catch (IOException e) {
          throw new IllegalStateException(e);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    @Override
    synchronized String method() {
      return String.format(Locale.ROOT, "iptables-legacy-save rounds, %d of mean %.0f ms (dated by the restore's end when one ended in the round)",
          rounds, rounds == 0 ? 0 : roundMicros / 1000.0 / rounds);
    }

    @Override
    public void close() throws InterruptedException {
      stop = true;
      poller.interrupt();
      poller.join(30_000);
    }
  }
}
