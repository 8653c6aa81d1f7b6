package dev.kubeproxy.backend.netfilter;


import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.net.IpFamily;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The iptables commands of one family on one backend (iptables-legacy, ip6tables-nft, ...): version
 * probing, xtables-lock wait flags, restore, save and single-rule edits. Blocking: call from a worker.
 */
public final class IptablesTool {
  private static final Pattern VERSION = Pattern.compile("v(\\d+)\\.(\\d+)\\.(\\d+)");
  private static final Pattern FAILED_LINE = Pattern.compile("line:? (\\d+)");

  private final CommandRunner runner;
  private final IpFamily family;
  private final IptablesBackend backend;
  private int[] version;
  private List<String> waitFlags;
  private List<String> restoreWaitFlags;

  public IptablesTool(CommandRunner runner, IpFamily family, IptablesBackend backend) {
    this.runner = runner;
    this.family = family;
    this.backend = backend;
  }

  public IpFamily family() {
    return family;
  }

  public IptablesBackend backend() {
    return backend;
  }

  /** iptables-legacy, ip6tables-nft, ... */
  public String command() {
    return (family == IpFamily.IPv6 ? "ip6tables-" : "iptables-") + backend.suffix();
  }

  public String restoreCommand() {
    return command() + "-restore";
  }

  public String saveCommand() {
    return command() + "-save";
  }

  /** The tool's version (major, minor, patch), or null when it does not run or prints none. */
  public synchronized int[] version() {
    if (version == null) {
      version = new int[] {-1, 0, 0};
      try {
        CommandRunner.Result result = runner.run(List.of(command(), "--version"));
        Matcher m = VERSION.matcher(result.stdout() + result.stderr());
        if (result.ok() && m.find()) {
          version = new int[] {
            Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))
          };
        }
      } catch (IOException e) {
        // Not installed: version stays unknown.
      }
    }
    return version[0] < 0 ? null : version.clone();
  }

  /** Whether the tool runs at all here. */
  public boolean available() {
    return version() != null;
  }

  public static boolean atLeast(int[] v, int major, int minor, int patch) {
    if (v == null) {
      return false;
    }
    if (v[0] != major) {
      return v[0] > major;
    }
    if (v[1] != minor) {
      return v[1] > minor;
    }
    return v[2] >= patch;
  }

  /** MASQUERADE --random-fully exists from 1.6.2 on. */
  public boolean supportsRandomFully() {
    return atLeast(version(), 1, 6, 2);
  }

  /**
   * Wait flags for iptables itself (pkg/util/iptables/iptables.go getIPTablesWaitFlag): a wait in
   * seconds, never the -W poll interval, which newer iptables versions warn about or refuse.
   */
  public synchronized List<String> waitFlags() {
    if (waitFlags == null) {
      int[] v = version();
      if (atLeast(v, 1, 4, 22)) {
        waitFlags = List.of("-w", "5");
      } else if (atLeast(v, 1, 4, 20)) {
        waitFlags = List.of("-w");
      } else {
        waitFlags = List.of();
      }
    }
    return waitFlags;
  }

  /** Wait flags for iptables-restore: it waits for the xtables lock itself from 1.6.2 on. */
  public synchronized List<String> restoreWaitFlags() {
    if (restoreWaitFlags == null) {
      int[] v = version();
      restoreWaitFlags = atLeast(v, 1, 6, 2) ? List.of("-w", "5")
          : v != null ? List.of("-w") : List.of();
    }
    return restoreWaitFlags;
  }

  /** A restore that failed: the tool's message and, when it names one, the failing input line. */
  public static final class RestoreException extends Exception {
    private final String failure;
    private final int lineNumber;
    private final String failingLine;

    /** @param failure the command, its exit status and its output */
    public RestoreException(String failure, int lineNumber, String failingLine) {
      this(failure, lineNumber, failingLine, "");
    }

    private RestoreException(String failure, int lineNumber, String failingLine, String sentAs) {
      super(failingLine == null ? failure
          : failure + "; failing input line " + lineNumber + sentAs + ": " + failingLine);
      this.failure = failure;
      this.lineNumber = lineNumber;
      this.failingLine = failingLine;
    }

    /** 1-based line of the input the tool rejected, 0 when unknown. */
    public int lineNumber() {
      return lineNumber;
    }

    /** The rejected input line, or null when unknown. */
    public String failingLine() {
      return failingLine;
    }

    /**
     * The same refusal of an input sent in another order of its lines (iptables-save's), with the
     * line numbered as in the input's own order (the dry run's, the one the owners are known by).
     */
    public RestoreException renumbered(java.util.function.IntUnaryOperator toOwnOrder) {
      return lineNumber == 0 ? this : new RestoreException(failure, toOwnOrder.applyAsInt(lineNumber), failingLine,
          " (line " + lineNumber + " as sent, chains in name order)");
    }
  }

  /**
   * Runs iptables-restore --noflush --counters (optionally for one table, -T) with the given input.
   * Atomic per table: on failure the kernel keeps the previous rules of that table.
   */
  public void restore(CharSequence input, String onlyTable) throws RestoreException {
    List<String> argv = new ArrayList<>();
    argv.add(restoreCommand());
    argv.addAll(restoreWaitFlags());
    if (onlyTable != null) {
      argv.add("-T");
      argv.add(onlyTable);
    }
    argv.add("--noflush");
    argv.add("--counters");
    CommandRunner.Result result;
    try {
      result = runner.run(argv, input);
    } catch (IOException e) {
      throw new RestoreException(restoreCommand() + " could not be run: " + e.getMessage(), 0, null);
    }
    if (result.ok()) {
      return;
    }
    String output = (result.stderr() + result.stdout()).trim();
    int lineNumber = 0;
    String failingLine = null;
    Matcher m = FAILED_LINE.matcher(output);
    if (m.find()) {
      lineNumber = Integer.parseInt(m.group(1));
      failingLine = lineOf(input.toString(), lineNumber); // a copy of the input, on a failure only
    }
    String failure = restoreCommand() + " failed (exit status " + result.exitCode() + "): "
        + (output.isEmpty() ? "no message" : output);
    throw new RestoreException(failure, lineNumber, failingLine);
  }

  /** Line n (1-based) of text, or null when there is no such line. */
  public static String lineOf(String text, int n) {
    if (n < 1) {
      return null;
    }
    int start = 0;
    for (int i = 1; i < n; i++) {
      int next = text.indexOf('\n', start);
      if (next < 0) {
        return null;
      }
      start = next + 1;
    }
    if (start >= text.length()) {
      return null;
    }
    int end = text.indexOf('\n', start);
    return end < 0 ? text.substring(start) : text.substring(start, end);
  }

  /** iptables-save -t TABLE output; table null = every table that exists (creating none). */
  public String save(String table) throws IOException {
    List<String> argv = table == null ? List.of(saveCommand()) : List.of(saveCommand(), "-t", table);
    CommandRunner.Result result = runner.run(argv);
    if (!result.ok()) {
      throw new IOException(String.join(" ", argv) + " failed (exit status " + result.exitCode() + "): "
          + result.stderr().trim());
    }
    return result.stdout();
  }

  /** iptables-save -t TABLE output handed over one line at a time, never held whole (see {@link CommandRunner#runLines}). */
  public void saveLines(String table, Consumer<String> lines) throws IOException {
    List<String> argv = List.of(saveCommand(), "-t", table);
    CommandRunner.Result result = runner.runLines(argv, lines);
    if (!result.ok()) {
      throw new IOException(String.join(" ", argv) + " failed (exit status " + result.exitCode() + "): "
          + result.stderr().trim());
    }
  }

  /** Splits iptables-save output of several tables into table name → that table's lines. */
  public static Map<String, String> tablesOf(String saveOutput) {
    Map<String, String> tables = new HashMap<>();
    String current = null;
    StringBuilder lines = new StringBuilder();
    for (String line : saveOutput.split("\n")) {
      if (line.startsWith("*")) {
        current = line.substring(1).trim();
        lines.setLength(0);
      } else if (line.equals("COMMIT") && current != null) {
        tables.put(current, lines.toString());
        current = null;
      } else if (current != null) {
        lines.append(line).append('\n');
      }
    }
    return tables;
  }

  /** The chain names declared in iptables-save output (lines ":NAME POLICY [x:y]"). */
  public static Set<String> chainsOf(String saveOutput) {
    Set<String> chains = new LinkedHashSet<>();
    int start = 0;
    int length = saveOutput.length();
    while (start < length) {
      int end = saveOutput.indexOf('\n', start);
      if (end < 0) {
        end = length;
      }
      if (saveOutput.charAt(start) == ':') {
        int space = saveOutput.indexOf(' ', start);
        chains.add(saveOutput.substring(start + 1, space < 0 || space > end ? end : space));
      }
      start = end + 1;
    }
    return chains;
  }

  /**
   * The chains declared in one table, read from iptables-save line by line: the table's whole text
   * (every rule of a large cluster) is never held, only the names.
   */
  public Set<String> chainsIn(String table) throws IOException {
    return chainsIn(table, chain -> true);
  }

  /** The chains declared in one table that the filter keeps (those already known need not be held again). */
  public Set<String> chainsIn(String table, Predicate<String> keep) throws IOException {
    Set<String> chains = new LinkedHashSet<>();
    saveLines(table, line -> {
      if (line.startsWith(":")) {
        int space = line.indexOf(' ');
        String chain = line.substring(1, space < 0 ? line.length() : space);
        if (keep.test(chain)) {
          chains.add(chain);
        }
      }
    });
    return chains;
  }

  /** Runs `iptables WAIT args...`; returns the result (exit status 1 usually means "not there"). */
  public CommandRunner.Result run(List<String> args) throws IOException {
    List<String> argv = new ArrayList<>();
    argv.add(command());
    argv.addAll(waitFlags());
    argv.addAll(args);
    return runner.run(argv);
  }

  /** Creates the chain if missing. */
  public void ensureChain(String table, String chain) throws IOException {
    CommandRunner.Result result = run(List.of("-N", chain, "-t", table));
    if (!result.ok() && !chainExists(table, chain)) {
      throw new IOException("could not create chain " + chain + " in table " + table + " with " + command()
          + ": " + result.stderr().trim());
    }
  }

  /** Whether the chain exists (exit status 4, a resource problem, counts as "exists", as upstream). */
  public boolean chainExists(String table, String chain) throws IOException {
    CommandRunner.Result result = run(List.of("-S", chain, "-t", table));
    return result.ok() || result.exitCode() == 4;
  }

  /** Inserts the rule at the top of the chain unless it is there already (-C). */
  public void ensureRuleAtTop(String table, String chain, List<String> ruleArgs) throws IOException {
    List<String> check = new ArrayList<>(List.of("-C", chain, "-t", table));
    check.addAll(ruleArgs);
    if (run(check).ok()) {
      return;
    }
    List<String> insert = new ArrayList<>(List.of("-I", chain, "-t", table));
    insert.addAll(ruleArgs);
    CommandRunner.Result result = run(insert);
    if (!result.ok()) {
      throw new IOException("could not add rule to " + table + "/" + chain + " with " + command() + ": "
          + result.stderr().trim());
    }
  }

  /** Deletes every copy of the rule; true when at least one was there. */
  public boolean deleteRule(String table, String chain, List<String> ruleArgs) throws IOException {
    boolean deleted = false;
    for (int i = 0; i < 16; i++) {
      List<String> delete = new ArrayList<>(List.of("-D", chain, "-t", table));
      delete.addAll(ruleArgs);
      if (!run(delete).ok()) {
        break;
      }
      deleted = true;
    }
    return deleted;
  }

  @Override
  public String toString() {
    return command();
  }
}
