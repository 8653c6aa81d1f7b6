package dev.kubeproxy.packaging;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a running agent's RSS goes, printed by the benchmarks with {@code --breakdown}: the
 * kernel's view (anonymous, file-backed, peak), the JVM's native memory tracking per category
 * (committed; only when the agent runs with {@code -XX:NativeMemoryTracking=summary}) and the
 * largest classes of the live heap. Call it after the RSS figure is taken: the histogram runs a
 * full collection.
 */
final class MemoryBreakdown {
  private static final Pattern NMT = Pattern.compile("(?m)^-\\s+([A-Za-z ]+?) \\(reserved=(\\d+)KB, committed=(\\d+)KB\\)");
  private static final Pattern HISTO = Pattern.compile("(?m)^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");
  private static final int CLASSES = 20;

  private MemoryBreakdown() {}

  static void print(long pid) throws IOException, InterruptedException {
    StringBuilder proc = new StringBuilder();
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:") || line.startsWith("RssAnon:") || line.startsWith("RssFile:")
          || line.startsWith("VmHWM:") || line.startsWith("Threads:")) {
        String[] f = line.split("\\s+");
        proc.append(' ').append(f[0]).append(' ').append(f[0].equals("Threads:") ? f[1] : mb(Long.parseLong(f[1])));
      }
    }
    System.out.println("    process:" + proc);
    String jcmd = Path.of("/proc/" + pid + "/exe").toRealPath().resolveSibling("jcmd").toString();
    String nmt = Commands.run(List.of(jcmd, String.valueOf(pid), "VM.native_memory", "summary"), null).stdout();
    Matcher m = NMT.matcher(nmt);
    StringBuilder cats = new StringBuilder();
    while (m.find()) {
      long committed = Long.parseLong(m.group(3));
      if (committed >= 1024) {
        cats.append(String.format(Locale.ROOT, " %s %s;", m.group(1).trim(), mb(committed)));
      }
    }
    System.out.println("    NMT committed:" + (cats.length() == 0 ? " (agent not started with -XX:NativeMemoryTracking)" : cats));
    String histo = Commands.run(List.of(jcmd, String.valueOf(pid), "GC.class_histogram"), null).stdout();
    Path whole = Files.createTempFile("kp-histogram-", ".txt");
    Files.writeString(whole, histo);
    Matcher h = HISTO.matcher(histo);
    System.out.println("    live heap, largest classes (instances, MB; all in " + whole + "):");
    for (int i = 0; i < CLASSES && h.find(); i++) {
      System.out.printf(Locale.ROOT, "      %,11d %7.1f  %s%n", Long.parseLong(h.group(1)),
          Long.parseLong(h.group(2)) / 1048576.0, h.group(3));
    }
  }

  /**
   * Trims the C heap now and prints what that returned to the kernel: memory glibc kept after it
   * was freed, which the RSS counts and native memory tracking does not.
   */
  static void printNativeTrim(String jcmd, long pid) throws IOException, InterruptedException {
    String out = Commands.run(List.of(jcmd, String.valueOf(pid), "System.trim_native_heap"), null).stdout();
    String result = out.lines().filter(l -> l.contains("->")).findFirst().orElse(out.strip());
    System.out.println("    C heap trimmed before the collection: " + result.strip());
  }

  private static String mb(long kb) {
    return String.format(Locale.ROOT, "%.1f MB", kb / 1024.0);
  }
}
