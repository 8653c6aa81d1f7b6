package dev.kubeproxy.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Tiers;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestTemplate;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Every test class is in exactly one tier, and its name sends it to the plugin that runs that
 * tier (*Test to Surefire for unit and kernel, *IT to Failsafe for the others): a class outside
 * a tier, or named so that neither plugin picks it up, would silently never run.
 */
@Unit
class TestTiersTest {
  @Test
  void everyTestClassHasOneTierMatchingItsName() throws Exception {
    List<String> wrong = new ArrayList<>();
    int checked = 0;
    for (Class<?> c : testClasses()) {
      if (Modifier.isAbstract(c.getModifiers()) || c.getEnclosingClass() != null || !hasTests(c)) {
        continue;
      }
      checked++;
      Set<String> tiers = new TreeSet<>();
      for (Tag tag : AnnotationSupport.findRepeatableAnnotations(c, Tag.class)) {
        if (Tiers.ALL.contains(tag.value())) {
          tiers.add(tag.value());
        }
      }
      String name = c.getSimpleName();
      boolean surefire = name.endsWith("Test");
      if (tiers.size() != 1) {
        wrong.add(name + " has tiers " + tiers + ": give it one of " + Tiers.ALL + " (testutil.tier annotations)");
      } else if (!(surefire || name.endsWith("IT")) || surefire != Tiers.IN_PROCESS.contains(tiers.iterator().next())) {
        wrong.add(name + " is in tier " + tiers + ": name it *Test for " + Tiers.IN_PROCESS
            + " (Surefire) and *IT for the others (Failsafe)");
      }
    }
    assertTrue(checked > 100, "found only " + checked + " test classes under " + testClassesDir());
    assertEquals(List.of(), wrong);
  }

  /** The top-level classes compiled from src/test/java, loaded without initializing them. */
  private static List<Class<?>> testClasses() throws IOException, URISyntaxException, ClassNotFoundException {
    Path root = testClassesDir();
    List<Class<?>> classes = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class") && !p.toString().contains("$"))::iterator) {
        String name = root.relativize(f).toString().replace('/', '.').replaceAll("\\.class$", "");
        if (!name.endsWith("package-info")) {
          classes.add(Class.forName(name, false, TestTiersTest.class.getClassLoader()));
        }
      }
    }
    return classes;
  }

  private static Path testClassesDir() throws URISyntaxException {
    return Path.of(TestTiersTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  private static boolean hasTests(Class<?> type) {
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        if (AnnotationSupport.isAnnotated(m, Test.class) || AnnotationSupport.isAnnotated(m, TestTemplate.class)
            || AnnotationSupport.isAnnotated(m, TestFactory.class)) {
          return true;
        }
      }
    }
    return false;
  }
}
