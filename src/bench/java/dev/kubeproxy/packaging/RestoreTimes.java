package dev.kubeproxy.packaging;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The restore tool's own time inside the agent's syncs: a wrapper named iptables-legacy-restore,
 * first on the agent's PATH, runs the real tool on the agent's own input (stdin passes straight
 * through) and notes when it started and ended. Beside the agent's "SyncProxyRules complete" log
 * lines (-v=2) that gives, per sync, the agent's time and the tool's time for the very same input.
 */
final class RestoreTimes {
  private static final Pattern SYNC_LINE = Pattern.compile(
      "^I(\\d\\d)(\\d\\d) (\\d\\d:\\d\\d:\\d\\d\\.\\d+).*\"SyncProxyRules complete\".*ipFamily=\"IPv4\".*elapsed=\"([^\"]+)\".*kind=\"(\\w+)\"");
  private static final Pattern GO_DURATION = Pattern.compile("([0-9.]+)(h|ms|m|s|µs|us|ns)");

  private final Path dir;
  private final Path log;

  /** A sync of the agent (from its log) and the restores that ran inside it. */
  record Sync(long endMicros, double agentSeconds, String kind, double toolSeconds, int restores) {}

  private RestoreTimes(Path dir, Path log) {
    this.dir = dir;
    this.log = log;
  }

  static RestoreTimes install(Path dir) throws IOException, InterruptedException {
    String real = Commands.run(List.of("sh", "-c", "command -v iptables-legacy-restore"), null).stdout().trim();
    if (real.isEmpty()) {
      throw new IllegalStateException("iptables-legacy-restore is not on PATH: install iptables (legacy backend)");
    }
    Path log = dir.resolve("restores.log");
    Files.writeString(log, "");
    Path wrapper = dir.resolve("iptables-legacy-restore");
    Files.writeString(wrapper, "#!/bin/sh\ns=$(date +%s%N)\n" + real + " \"$@\"\nrc=$?\ne=$(date +%s%N)\n"
        + "echo \"$s $e $rc\" >> " + log + "\nexit $rc\n");
    Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
    return new RestoreTimes(dir, log);
  }

  /** The PATH for the agent: the wrapper's directory first. */
  String path() {
    return dir + ":" + System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
  }

  /** Every restore so far: start and end, epoch microseconds. */
  List<long[]> restores() {
    List<long[]> out = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(log)) {
        String[] f = line.split(" ");
        if (f.length == 3) {
          out.add(new long[] {Long.parseLong(f[0]) / 1000, Long.parseLong(f[1]) / 1000});
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  /** The earliest end of a restore in (from, to], or -1. */
  long firstEndBetween(long fromMicros, long toMicros) {
    long first = -1;
    for (long[] r : restores()) {
      if (r[1] > fromMicros && r[1] <= toMicros && (first < 0 || r[1] < first)) {
        first = r[1];
      }
    }
    return first;
  }

  /** The agent's IPv4 syncs that ended after {@code fromMicros}, each with the restores that ran within it. */
  List<Sync> syncsSince(Path agentLog, long fromMicros) throws IOException {
    List<long[]> restores = restores();
    List<Sync> out = new ArrayList<>();
    int year = LocalDate.now().getYear();
    for (String line : Files.readAllLines(agentLog)) {
      Matcher m = SYNC_LINE.matcher(line);
      if (!m.find()) {
        continue;
      }
      java.time.Instant at = LocalDate.of(year, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)))
          .atTime(LocalTime.parse(m.group(3))).atZone(ZoneId.systemDefault()).toInstant();
      long end = at.getEpochSecond() * 1_000_000 + at.getNano() / 1000;
      double seconds = goSeconds(m.group(4));
      if (end < fromMicros) {
        continue;
      }
      long start = end - (long) (seconds * 1e6);
      double tool = 0;
      int count = 0;
      for (long[] r : restores) {
        if (r[0] >= start - 1000 && r[1] <= end + 1000) {
          tool += (r[1] - r[0]) / 1e6;
          count++;
        }
      }
      out.add(new Sync(end, seconds, m.group(5), tool, count));
    }
    return out;
  }

  static double goSeconds(String d) {
    double s = 0;
    Matcher m = GO_DURATION.matcher(d);
    while (m.find()) {
      double v = Double.parseDouble(m.group(1));
      s += switch (m.group(2)) {
        case "h" -> v * 3600;
        case "m" -> v * 60;
        case "s" -> v;
        case "ms" -> v / 1e3;
        case "µs", "us" -> v / 1e6;
        default -> v / 1e9;
      };
    }
    return s;
  }

  static String describe(Sync s) {
    return String.format(Locale.ROOT, "%s sync: agent %.3f s, iptables-legacy-restore %.3f s (%d run%s), ratio %s",
        s.kind(), s.agentSeconds(), s.toolSeconds(), s.restores(), s.restores() == 1 ? "" : "s",
        s.toolSeconds() > 0 ? String.format(Locale.ROOT, "%.2f", s.agentSeconds() / s.toolSeconds()) : "-");
  }
}
