package dev.kubeproxy.testutil.tier;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestTag;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Prints, at the end of a Surefire or Failsafe run, what each tier ran and what it skipped and
 * why (registered through META-INF/services), so that a run as a normal user says that the
 * kernel tier did not run rather than passing quietly.
 */
public final class TierSummary implements TestExecutionListener {
  /** Per tier: classes seen, tests passed/failed, and skip reasons with how many tests or classes each. */
  private static final class Tally {
    final Map<String, Boolean> classes = new ConcurrentHashMap<>();
    final AtomicInteger passed = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();
    final Map<String, AtomicInteger> skipped = new ConcurrentHashMap<>();

    void skip(String reason, int tests) {
      skipped.computeIfAbsent(reason, r -> new AtomicInteger()).addAndGet(tests);
    }
  }

  private final Map<String, Tally> tiers = new ConcurrentHashMap<>();
  private volatile TestPlan plan;

  @Override
  public void testPlanExecutionStarted(TestPlan testPlan) {
    plan = testPlan;
  }

  @Override
  public void executionSkipped(TestIdentifier id, String reason) {
    if (id.getSource().filter(ClassSource.class::isInstance).isPresent()) {
      Tally tally = tally(id);
      tally.classes.put(className(id), true);
      tally.skip(reason, testsUnder(id));
    } else if (id.isTest() || id.getSource().filter(MethodSource.class::isInstance).isPresent()) {
      tally(id).skip(reason, 1);
    }
  }

  @Override
  public void executionFinished(TestIdentifier id, TestExecutionResult result) {
    if (id.getSource().filter(ClassSource.class::isInstance).isPresent()) {
      Tally tally = tally(id);
      tally.classes.put(className(id), true);
      if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
        tally.skip(reason(result), testsUnder(id));
      }
      return;
    }
    if (!id.isTest()) {
      return;
    }
    Tally tally = tally(id);
    switch (result.getStatus()) {
      case SUCCESSFUL -> tally.passed.incrementAndGet();
      case FAILED -> tally.failed.incrementAndGet();
      case ABORTED -> tally.skip(reason(result), 1);
    }
  }

  @Override
  public void testPlanExecutionFinished(TestPlan testPlan) {
    if (!tiers.isEmpty()) {
      // the fork's own stderr: Surefire files System.out and System.err under the last test class
      PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true);
      print(err);
      err.flush();
    }
  }

  void print(PrintStream out) {
    out.println();
    out.println("Test tiers in this run (-Dgroups=TAG runs one tier):");
    List<String> order = new ArrayList<>(Tiers.ALL);
    tiers.keySet().stream().filter(t -> !order.contains(t)).sorted().forEach(order::add);
    for (String tier : order) {
      Tally t = tiers.get(tier);
      if (t == null) {
        continue;
      }
      int skippedCount = t.skipped.values().stream().mapToInt(AtomicInteger::get).sum();
      out.printf("  %-9s %d classes: %d passed, %d failed, %d skipped%n",
          tier, t.classes.size(), t.passed.get(), t.failed.get(), skippedCount);
      new TreeMap<>(t.skipped).forEach((reason, n) -> out.printf("            %d skipped: %s%n", n.get(), reason));
    }
  }

  /** The test methods of a class that did not run: a parameterized method counts once. */
  private int testsUnder(TestIdentifier id) {
    TestPlan p = plan;
    if (p == null) {
      return 1;
    }
    return (int) Math.max(1, p.getDescendants(id).stream()
        .filter(d -> d.getSource().filter(MethodSource.class::isInstance).isPresent()).count());
  }

  private Tally tally(TestIdentifier id) {
    return tiers.computeIfAbsent(tierOf(id), k -> new Tally());
  }

  /**
   * The first tier tag of the identifier or of its nearest tagged ancestor (invocations of a
   * parameterized or dynamic test carry no tags of their own), or "untagged".
   */
  private String tierOf(TestIdentifier id) {
    TestPlan p = plan;
    for (TestIdentifier at = id; at != null; at = p == null ? null : p.getParent(at).orElse(null)) {
      for (String tier : Tiers.ALL) {
        if (at.getTags().contains(TestTag.create(tier))) {
          return tier;
        }
      }
    }
    return "untagged";
  }

  private String className(TestIdentifier id) {
    return id.getSource().map(s -> ((ClassSource) s).getClassName()).orElse(id.getUniqueId());
  }

  private static String reason(TestExecutionResult result) {
    Optional<Throwable> cause = result.getThrowable();
    String message = cause.map(Throwable::getMessage).orElse("aborted");
    return message == null ? cause.get().getClass().getSimpleName() : message.replaceFirst("^Assumption failed: ", "");
  }
}
