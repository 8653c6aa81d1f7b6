package dev.kubeproxy.e2e;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/** JUnit assumptions for the network-namespace tests: they skip, saying why, where they cannot run. */
public final class Requirements {
  private Requirements() {}

  /** Root and the network tools: needed to build any topology. */
  public static void assumeNetnsCapable() {
    assumeTrue(isRoot(), "needs root to create network namespaces (running as "
        + System.getProperty("user.name") + ")");
    for (String tool : new String[] {"ip", "iptables", "nft"}) {
      assumeTrue(onPath(tool), "needs `" + tool + "` on PATH");
    }
  }

  public static void assumeTool(String tool) {
    assumeTrue(onPath(tool), "needs `" + tool + "` on PATH");
  }

  /** The packaged agent, built by `mvn package` before failsafe runs the *IT classes. */
  public static Path assumeAgentJar() {
    Path jar = Path.of("target", "kube-proxy.jar").toAbsolutePath();
    assumeTrue(Files.isRegularFile(jar), "needs the packaged agent " + jar + " (run `mvn package` first)");
    return jar;
  }

  public static boolean isRoot() {
    try {
      return "0".equals(Files.readString(Path.of("/proc/self/status")).lines()
          .filter(l -> l.startsWith("Uid:")).findFirst().orElse("").split("\\s+")[1]);
    } catch (Exception e) {
      return "root".equals(System.getProperty("user.name"));
    }
  }

  public static boolean onPath(String tool) {
    String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin";
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }
}
