package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Nftables;
import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.Table;
import dev.kubeproxy.backend.nftables.objects.Transaction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.net.IpFamily;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Applies transactions with "nft -f -" and lists chain and set names with "nft --json list …". */
public final class NftCommand implements Nftables {
  private static final Pattern ERROR_LOCATION = Pattern.compile("(?m)^/dev/stdin:(\\d+):");
  private static final int MAX_MESSAGE = 4000;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final IpFamily family;
  private final CommandRunner runner;
  private volatile boolean objectComments = true;

  public NftCommand(IpFamily family, CommandRunner runner) {
    this.family = family;
    this.runner = runner;
  }

  /** Old nft versions reject comments on tables, chains, sets and maps: then leave them out. */
  public void setObjectComments(boolean objectComments) {
    this.objectComments = objectComments;
  }

  public boolean objectComments() {
    return objectComments;
  }

  @Override
  public void run(Transaction tx) throws NftablesException {
    apply(List.of("nft", "-f", "-"), tx.render(family, objectComments));
  }

  /**
   * Checks the transaction one command a line ("nft --check": nothing is committed) and returns
   * the commands nft or the kernel refused, from nft's error locations.
   */
  @Override
  public List<Integer> refusedCommands(Transaction tx) {
    String input = tx.renderOnePerLine(family, objectComments);
    CommandRunner.Result result;
    try {
      result = runner.run(List.of("nft", "--check", "-f", "-"), input);
    } catch (IOException e) {
      return List.of();
    }
    List<Integer> refused = new ArrayList<>();
    Matcher m = ERROR_LOCATION.matcher(result.ok() ? "" : result.stderr());
    while (m.find()) {
      int index = Integer.parseInt(m.group(1)) - 1;
      if (index >= 0 && index < tx.size() && !refused.contains(index)) {
        refused.add(index);
      }
    }
    return refused;
  }

  /** "nft list counters table ip kube-proxy", read for each counter's packets. */
  @Override
  public Map<String, Long> counterPackets() throws NftablesException {
    CommandRunner.Result result;
    try {
      result = runner.run(List.of("nft", "list", "counters", "table", Transaction.familyKeyword(family),
          Transaction.TABLE));
    } catch (IOException e) {
      throw new NftablesException("cannot run nft (is the nft binary installed and on PATH?): " + e.getMessage(), e);
    }
    if (!result.ok()) {
      throw new NftablesException("nft list counters failed: " + result.stderr().strip(), null, false);
    }
    return parseCounters(result.stdout());
  }

  private static final Pattern COUNTER = Pattern.compile("counter\\s+(\\S+)\\s*\\{\\s*packets\\s+(\\d+)");

  /** Each "counter NAME { packets N bytes M }" of nft's listing. */
  static Map<String, Long> parseCounters(String listing) {
    Map<String, Long> out = new LinkedHashMap<>();
    Matcher m = COUNTER.matcher(listing);
    while (m.find()) {
      out.put(m.group(1), Long.parseLong(m.group(2)));
    }
    return out;
  }

  /** Runs "nft --check -f -": the kernel validates the input without committing it. */
  public void check(String input) throws NftablesException {
    apply(List.of("nft", "--check", "-f", "-"), input);
  }

  private void apply(List<String> argv, String input) throws NftablesException {
    CommandRunner.Result result;
    try {
      result = runner.run(argv, input);
    } catch (IOException e) {
      throw new NftablesException("cannot run nft (is the nft binary installed and on PATH?): "
          + e.getMessage(), e);
    }
    if (!result.ok()) {
      throw failure(result.stderr(), input);
    }
  }

  /** Builds the error from nft's message, naming the first input line nft complained about. */
  static NftablesException failure(String stderr, String input) {
    String message = stderr.strip();
    String failingLine = null;
    Matcher m = ERROR_LOCATION.matcher(stderr);
    if (m.find()) {
      int lineNo = Integer.parseInt(m.group(1));
      String[] lines = input.split("\n", -1);
      if (lineNo >= 1 && lineNo <= lines.length) {
        failingLine = "line " + lineNo + ": " + lines[lineNo - 1];
      }
    }
    if (message.length() > MAX_MESSAGE) {
      message = message.substring(0, MAX_MESSAGE) + "\n… (nft printed more errors)";
    }
    StringBuilder text = new StringBuilder("nft failed: ").append(message.isEmpty() ? "(no message)" : message);
    if (failingLine != null) {
      text.append("\nfailing input ").append(failingLine);
    }
    boolean notFound = stderr.contains("No such file or directory");
    return new NftablesException(text.toString(), failingLine, notFound);
  }

  @Override
  public TableContents list() throws NftablesException {
    String fam = Transaction.familyKeyword(family);
    Set<String> chains = names(fam, "chains", "chain");
    Set<String> sets = names(fam, "sets", "set");
    // "nft list tables" would fetch every rule (a minute at 10,000 services with nft 1.0.6): a
    // table of ours always holds base chains, so chains and sets tell whether it exists.
    boolean exists = !chains.isEmpty() || !sets.isEmpty();
    return new TableContents(exists, chains, sets);
  }

  private Set<String> names(String fam, String what, String kind) throws NftablesException {
    Set<String> names = new LinkedHashSet<>();
    for (JsonNode item : listJson(List.of("nft", "--json", "--terse", "list", what, fam))) {
      JsonNode obj = item.get(kind);
      if (obj != null && Transaction.TABLE.equals(obj.path("table").asText())) {
        names.add(obj.path("name").asText());
      }
    }
    return names;
  }

  private Iterable<JsonNode> listJson(List<String> argv) throws NftablesException {
    CommandRunner.Result result;
    try {
      result = runner.run(argv);
    } catch (IOException e) {
      throw new NftablesException("cannot run nft: " + e.getMessage(), e);
    }
    if (!result.ok()) {
      throw failure(result.stderr(), "");
    }
    try {
      String out = result.stdout().strip();
      if (out.isEmpty()) {
        return List.of();
      }
      return JSON.readTree(out).path("nftables");
    } catch (IOException e) {
      throw new NftablesException("cannot parse the output of " + String.join(" ", argv), e);
    }
  }

  /**
   * Removes the nftables rules of one family (for --cleanup and for starting in another mode).
   * Returns false (after logging why) when the table exists but could not be deleted.
   */
  public static boolean cleanupTable(IpFamily family, CommandRunner runner) {
    try {
      new NftCommand(family, runner).run(new Transaction().delete(new Table(null)));
      return true;
    } catch (NftablesException e) {
      if (e.notFound()) {
        return true;
      }
      Log.error("Cannot delete the kube-proxy nftables table", "family", Transaction.familyKeyword(family),
          "err", e.getMessage());
      return false;
    }
  }
}
