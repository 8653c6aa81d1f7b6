package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.host.CommandRunner;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The ipset tool (pkg/proxy/ipvs/ipset/ipset.go): upstream runs one command per set and entry;
 * here a sync's creations, additions and deletions go to one "ipset restore -exist".
 */
public final class IpSetTool {
  /** upstream MinIPSetCheckVersion: IPv6 sets need ipset 6. */
  static final String MIN_VERSION = "6.0";
  private static final Pattern VERSION = Pattern.compile("v([0-9]+)\\.([0-9]+)");

  private final CommandRunner runner;

  public IpSetTool(CommandRunner runner) {
    this.runner = runner;
  }

  /** upstream GetVersion: "X.Y" from "ipset --version" ("ipset v7.17, protocol version: 7"). */
  public String version() throws IOException {
    CommandRunner.Result r = runner.run(List.of("ipset", "--version"));
    if (!r.ok()) {
      throw new IOException("ipset --version failed: " + (r.stderr() + r.stdout()).trim());
    }
    Matcher m = VERSION.matcher(r.stdout() + r.stderr());
    if (!m.find()) {
      throw new IOException("no ipset version found in: " + r.stdout().trim());
    }
    return m.group(1) + "." + m.group(2);
  }

  /** upstream checkMinVersion */
  static boolean atLeastMinimum(String version) {
    String[] v = version.split("\\.");
    String[] min = MIN_VERSION.split("\\.");
    for (int i = 0; i < 2; i++) {
      int a = i < v.length ? Integer.parseInt(v[i]) : 0;
      int b = Integer.parseInt(min[i]);
      if (a != b) {
        return a > b;
      }
    }
    return true;
  }

  /**
   * Every set's members as "ipset save" lists them ("add NAME ENTRY"), by set name; only sets whose
   * name starts with prefix.
   */
  public Map<String, Set<String>> entries(String prefix) throws IOException {
    return parseSave(save(), prefix);
  }

  /** "ipset save": every set's creation line and entries. */
  public String save() throws IOException {
    CommandRunner.Result r = runner.run(List.of("ipset", "save"));
    if (!r.ok()) {
      throw new IOException("ipset save failed: " + r.stderr().trim());
    }
    return r.stdout();
  }

  static Map<String, Set<String>> parseSave(String save, String prefix) {
    Map<String, Set<String>> out = new LinkedHashMap<>();
    for (String line : save.split("\n")) {
      String[] f = line.trim().split("\\s+");
      if (f.length >= 2 && f[0].equals("create") && f[1].startsWith(prefix)) {
        out.computeIfAbsent(f[1], k -> new LinkedHashSet<>());
      } else if (f.length >= 3 && f[0].equals("add") && f[1].startsWith(prefix)) {
        out.computeIfAbsent(f[1], k -> new LinkedHashSet<>()).add(f[2]);
      }
    }
    return out;
  }

  /** Applies "ipset restore" input; "-exist" makes creating an existing set and adding an existing entry no error. */
  public void restore(String input) throws IOException {
    if (input.isEmpty()) {
      return;
    }
    CommandRunner.Result r = runner.run(List.of("ipset", "restore", "-exist"), input);
    if (!r.ok()) {
      throw new IOException("ipset restore failed: " + r.stderr().trim());
    }
  }

  /** upstream DestroySet; a set that does not exist is no error. */
  public void destroy(String name) throws IOException {
    CommandRunner.Result r = runner.run(List.of("ipset", "destroy", name));
    if (!r.ok() && !r.stderr().contains("does not exist")) {
      throw new IOException("ipset destroy " + name + " failed: " + r.stderr().trim());
    }
  }

  /**
   * Destroys existing sets in one "ipset restore" batch of destroy lines, not a process per set
   * (cleanup destroys up to 17 sets a family; a missing one fails the batch).
   */
  public void destroyAll(java.util.Collection<String> names) throws IOException {
    if (names.isEmpty()) {
      return;
    }
    StringBuilder input = new StringBuilder();
    names.forEach(n -> input.append("destroy ").append(n).append('\n'));
    CommandRunner.Result r = runner.run(List.of("ipset", "restore"), input.toString());
    if (!r.ok()) {
      throw new IOException("ipset destroy failed: " + r.stderr().trim());
    }
  }
}
