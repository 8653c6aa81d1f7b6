package dev.kubeproxy.packaging;

import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.DELCHAIN;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.DELRULE;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.DELSETELEM;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.NEWCHAIN;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.NEWRULE;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.NEWSETELEM;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.NFNLGRP_NFTABLES;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.NFNL_SUBSYS_NFTABLES;

import com.sun.jna.LastErrorException;
import dev.kubeproxy.host.netlink.Attributes;
import dev.kubeproxy.host.netlink.LibC;
import dev.kubeproxy.host.netlink.NetlinkMessage;
import dev.kubeproxy.host.netlink.NetlinkSocket;
import dev.kubeproxy.net.IpAddresses;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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

/**
 * From outside the agent: when each churn change is in the namespace's kernel rules. A change is
 * expected with the time it was written to the API server (epoch microseconds) and resolved when
 * its trace appears: a replaced endpoint's address, a created Service's cluster IP, a deleted
 * Service's cluster IP gone. nftables is followed through the kernel's own announcements, iptables
 * (which announces nothing) by reading the table in rounds.
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
   * nftables: a NETLINK_NETFILTER socket of the benchmark's own in the namespace, subscribed to
   * NFNLGRP_NFTABLES. The kernel announces every object of a transaction as it commits it, so a
   * change is timed at the receipt of its announcement, at no cost to the agent and without reading
   * the ruleset first (as {@code nft monitor} does, which then starts listening far too late at tens
   * of thousands of Services); the subscription holds once the socket has joined the group.
   *
   * <p>Only the agent's {@code ip kube-proxy} table counts, and "visible" is what makes the agent's
   * layout route the change: a created Service once an added {@code service-ips} element (or
   * {@code single-endpoint-services}, for a ClusterIP-only Service with one endpoint) has its
   * cluster IP in the key (without endpoints it would go to {@code no-endpoint-services} and not
   * count yet), a deleted one once that element is deleted; a replaced endpoint once its address is
   * in an added rule (a policy chain's dnat to its only endpoint), an added element (its
   * {@code single-endpoint-services} or {@code endpoint-ranges-*} entry) or an added chain's name
   * (its endpoint chain, with ClientIP affinity). An address is matched as its four network-order bytes at an
   * attribute boundary (every netlink value is 4-aligned) or as text; the announcements of one sync
   * all come from its one commit, so whichever carries the address dates it. Never seen: a change
   * whose announcement the kernel dropped (receive buffer full: counted), a Service created and
   * deleted between two syncs (nothing is committed for it), a deletion by a whole set or table
   * (the kernel announces no elements for that).
   */
  static final class Nftables extends KernelWatch {
    private static final int NFPROTO_IPV4 = 2;
    /** NFTA_CHAIN_TABLE, NFTA_RULE_TABLE and NFTA_SET_ELEM_LIST_TABLE are all 1. */
    private static final int TABLE = 1;
    /** NFTA_RULE_CHAIN and NFTA_SET_ELEM_LIST_SET: the chain or set the rule or elements belong to. */
    private static final int CONTAINER = 2;
    private static final int NFTA_CHAIN_NAME = 3;

    private final NetlinkSocket socket;
    private final Thread reader;
    private volatile boolean stop;
    private long messages;
    private long overruns;
    private String failure;

    Nftables(Netns ns) throws IOException {
      socket = NetlinkSocket.open(LibC.load(), LibC.NETLINK_NETFILTER, ns.name);
      try {
        // A commit of a large sync announces tens of thousands of objects at once.
        socket.bufferSizes(64 * 1024, 64 * 1024 * 1024);
        socket.receiveTimeout(Duration.ofMillis(250)); // how soon the reader sees close()
        socket.joinGroup(NFNLGRP_NFTABLES);
      } catch (IOException e) {
        socket.close();
        throw e;
      }
      reader = new Thread(this::read, "nft-netlink-watch");
      reader.setDaemon(true);
      reader.start();
    }

    private void read() {
      byte[] buffer = new byte[256 * 1024];
      while (!stop) {
        int length;
        try {
          length = socket.receive(buffer, true);
        } catch (NetlinkSocket.Overrun e) {
          synchronized (this) {
            overruns++;
          }
          continue;
        } catch (IOException e) {
          if (e.getCause() instanceof LastErrorException le && le.getErrorCode() == LibC.EAGAIN) {
            continue; // the receive timeout: look at stop again
          }
          if (!stop) {
            synchronized (this) {
              failure = e.getMessage();
            }
          }
          return;
        }
        long at = nowMicros();
        try {
          for (NetlinkMessage m : NetlinkMessage.parse(buffer, length)) {
            seen(buffer, m, at);
          }
        } catch (IOException e) {
          synchronized (this) {
            failure = e.getMessage();
          }
          return;
        }
      }
    }

    /** Resolves the pending changes one nf_tables announcement makes visible. */
    private void seen(byte[] buffer, NetlinkMessage m, long at) {
      int type = m.type() & 0xff;
      if (m.type() >> 8 != NFNL_SUBSYS_NFTABLES || m.length() < 20 || buffer[m.start() + 16] != NFPROTO_IPV4) {
        return;
      }
      boolean added = type == NEWCHAIN || type == NEWRULE || type == NEWSETELEM;
      if (!added && type != DELCHAIN && type != DELRULE && type != DELSETELEM) {
        return;
      }
      Attributes a = Attributes.ofNetfilterMessage(buffer, m, NFTA_CHAIN_NAME);
      if (!"kube-proxy".equals(a.string(TABLE))) {
        return;
      }
      synchronized (this) {
        messages++;
      }
      String container = a.string(CONTAINER);
      boolean serviceIps = (type == NEWSETELEM || type == DELSETELEM)
          && ("service-ips".equals(container) || "single-endpoint-services".equals(container));
      for (Expected e : pending()) {
        boolean visible = switch (e.kind()) {
          case "endpoints" -> added && (carriesBytes(buffer, m, e.ip()) || carriesText(buffer, m, e.ip()));
          case "create" -> added && serviceIps && carriesBytes(buffer, m, e.ip());
          default -> !added && serviceIps && carriesBytes(buffer, m, e.ip());
        };
        if (visible) {
          resolved(e.kind().equals("delete") ? deleteKey(e.ip()) : addKey(e.ip()), at);
        }
      }
    }

    /** The address as four network-order bytes at a 4-aligned offset of the message's attributes. */
    static boolean carriesBytes(byte[] buffer, NetlinkMessage m, String ip) {
      byte[] want = IpAddresses.parse(ip);
      if (want == null || want.length != 4) {
        throw new IllegalArgumentException("not an IPv4 address: " + ip);
      }
      for (int at = m.start() + 20; at + 4 <= m.start() + m.length(); at += 4) {
        if (buffer[at] == want[0] && buffer[at + 1] == want[1] && buffer[at + 2] == want[2] && buffer[at + 3] == want[3]) {
          return true;
        }
      }
      return false;
    }

    /** The address as text not run together with other digits or dots (10.1.2.3 is not in 10.1.2.34). */
    static boolean carriesText(byte[] buffer, NetlinkMessage m, String ip) {
      byte[] want = ip.getBytes(StandardCharsets.US_ASCII);
      int end = m.start() + m.length();
      outer:
      for (int at = m.start() + 20; at + want.length <= end; at++) {
        for (int i = 0; i < want.length; i++) {
          if (buffer[at + i] != want[i]) {
            continue outer;
          }
        }
        if (!partOfAddress(buffer, at - 1) && (at + want.length == end || !partOfAddress(buffer, at + want.length))) {
          return true;
        }
      }
      return false;
    }

    private static boolean partOfAddress(byte[] buffer, int at) {
      return buffer[at] == '.' || (buffer[at] >= '0' && buffer[at] <= '9');
    }

    @Override
    synchronized String method() {
      return String.format(Locale.ROOT, "nf_tables' netlink announcements in the namespace, timed at their receipt:"
          + " %d for the kube-proxy table, %d receive buffer overruns (announcements dropped)", messages, overruns)
          + (failure == null ? "" : "; the reader stopped: " + failure);
    }

    @Override
    public void close() throws InterruptedException {
      stop = true;
      reader.join(5000);
      socket.close();
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
