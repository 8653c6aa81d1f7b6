package dev.kubeproxy.testutil.tier;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Runs a kernel-tier class only where network namespaces can be made: root and the ip command. */
public final class KernelHost implements ExecutionCondition {
  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    String why = whyNot();
    return why == null
        ? ConditionEvaluationResult.enabled("root, with the ip command")
        : ConditionEvaluationResult.disabled(why);
  }

  /** Why this host cannot run the kernel tier, or null when it can. */
  public static String whyNot() {
    if (!isRoot()) {
      return "not root (running as " + System.getProperty("user.name") + "): network namespaces need root";
    }
    if (!onPath("ip")) {
      return "the ip command (iproute2) is missing";
    }
    return null;
  }

  /** The effective uid from /proc, which is what namespace creation checks. */
  public static boolean isRoot() {
    try {
      return Files.readString(Path.of("/proc/self/status")).lines()
          .filter(l -> l.startsWith("Uid:")).findFirst().map(l -> "0".equals(l.split("\\s+")[2])).orElse(false);
    } catch (IOException e) {
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
