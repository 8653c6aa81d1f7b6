package dev.kubeproxy.proxy.nftables;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kubeproxy.platform.CommandRunner;
import dev.kubeproxy.proxy.IpFamily;
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

/** Applies transactions with "nft -f -" and lists the table with "nft --json list …". */
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
    runRendered(tx.render(family, objectComments));
  }

  /** Runs "nft -f -" on a transaction already rendered (the benchmark times the two apart). */
  void runRendered(String input) throws NftablesException {
    apply(List.of("nft", "-f", "-"), input);
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
    List<Integer> refused = new java.util.ArrayList<>();
    Matcher m = ERROR_LOCATION.matcher(result.ok() ? "" : result.stderr());
    while (m.find()) {
      int index = Integer.parseInt(m.group(1)) - 1;
      if (index >= 0 && index < tx.size() && !refused.contains(index)) {
        refused.add(index);
      }
    }
    return refused;
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

  /**
   * One "nft --json list table": every chain with its rules and every set and map with its
   * elements (about 7 s at 10,000 Services with nft 1.0.6, against two minutes for rewriting it).
   * Rules are kept as their JSON expression plus comment; elements are turned back into the key
   * and value text this package writes, so that they compare with the model.
   */
  @Override
  public KernelTable listTable() throws NftablesException {
    // -n (numeric: protocols as numbers) lists about 20 % faster; protocols are named again below.
    List<String> argv = List.of("nft", "--json", "-n", "list", "table", Transaction.familyKeyword(family),
        Transaction.TABLE);
    CommandRunner.Result result;
    try {
      result = runner.run(argv);
    } catch (IOException e) {
      throw new NftablesException("cannot run nft: " + e.getMessage(), e);
    }
    if (!result.ok()) {
      if (result.stderr().contains("No such file or directory")) {
        return KernelTable.absent();
      }
      throw failure(result.stderr(), "");
    }
    JsonNode items;
    try {
      items = JSON.readTree(result.stdout()).path("nftables");
    } catch (IOException e) {
      throw new NftablesException("cannot parse the output of " + String.join(" ", argv), e);
    }
    Map<String, List<String>> chains = new LinkedHashMap<>();
    Map<String, Map<String, String>> containers = new LinkedHashMap<>();
    Set<String> maps = new HashSet<>();
    for (JsonNode item : items) {
      if (item.has("chain")) {
        chains.putIfAbsent(item.get("chain").path("name").asText(), new ArrayList<>());
      } else if (item.has("rule")) {
        JsonNode rule = item.get("rule");
        String form = rule.path("expr").toString() + " comment " + rule.path("comment").asText("");
        chains.computeIfAbsent(rule.path("chain").asText(), k -> new ArrayList<>()).add(form);
      } else if (item.has("set") || item.has("map")) {
        boolean isMap = item.has("map");
        JsonNode obj = item.get(isMap ? "map" : "set");
        String name = obj.path("name").asText();
        List<String> keyTypes = new ArrayList<>();
        (obj.path("type").isArray() ? obj.path("type") : List.of(obj.path("type"))).forEach(t -> keyTypes.add(t.asText()));
        Map<String, String> elements = new LinkedHashMap<>();
        for (JsonNode elem : obj.path("elem")) {
          JsonNode key = isMap ? elem.path(0) : elem;
          String comment = null;
          if (key.has("elem")) {
            comment = key.get("elem").has("comment") ? key.get("elem").get("comment").asText() : null;
            key = key.get("elem").path("val");
          }
          String keyText = keyText(key, keyTypes);
          elements.put(keyText, KernelTable.elementText(keyText, comment, isMap ? text(elem.path(1)) : null));
        }
        containers.put(name, elements);
        if (isMap) {
          maps.add(name);
        }
      }
    }
    return new KernelTable(true, chains, containers, maps);
  }

  /** A set or map key in the syntax this package writes, with numeric protocols named ("6" to "tcp"). */
  static String keyText(JsonNode key, List<String> types) {
    if (!types.contains("inet_proto")) {
      return text(key);
    }
    List<JsonNode> parts = new ArrayList<>();
    (key.has("concat") ? key.get("concat") : List.of(key)).forEach(parts::add);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < parts.size(); i++) {
      if (i > 0) {
        sb.append(" . ");
      }
      String part = text(parts.get(i));
      if (i < types.size() && "inet_proto".equals(types.get(i))) {
        part = switch (part) {
          case "6" -> "tcp";
          case "17" -> "udp";
          case "132" -> "sctp";
          default -> part;
        };
      }
      sb.append(part);
    }
    return sb.toString();
  }

  /** A key or value of nft's JSON in the syntax this package writes ("10.0.0.1 . tcp . 80", "goto x"). */
  static String text(JsonNode node) {
    if (node.isValueNode()) {
      return node.asText();
    }
    if (node.has("concat")) {
      StringBuilder sb = new StringBuilder();
      for (JsonNode part : node.get("concat")) {
        if (sb.length() > 0) {
          sb.append(" . ");
        }
        sb.append(text(part));
      }
      return sb.toString();
    }
    if (node.has("prefix")) {
      return node.get("prefix").path("addr").asText() + "/" + node.get("prefix").path("len").asText();
    }
    if (node.has("range")) {
      return text(node.get("range").path(0)) + "-" + text(node.get("range").path(1));
    }
    for (String verdict : List.of("goto", "jump")) {
      if (node.has(verdict)) {
        return verdict + " " + node.get(verdict).path("target").asText();
      }
    }
    if (node.size() == 1) {
      String verdict = node.fieldNames().next(); // {"drop": null}, {"accept": null}, …
      if (node.get(verdict).isNull()) {
        return verdict;
      }
    }
    return node.toString(); // not a form written here: compares unequal, so it gets rewritten
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
}
