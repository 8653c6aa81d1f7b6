package dev.kubeproxy.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No main source file is longer than {@link #MAX_LINES} lines: a class that long holds more than
 * one concept, and a newcomer cannot follow it. Split it by concept (see docs/ARCHITECTURE.md).
 */
@Unit
class ClassSizeTest {
  static final int MAX_LINES = 400;

  @Test
  void noMainSourceFileIsOverTheLimit() throws Exception {
    Path root = mainSources();
    List<String> tooLong = new ArrayList<>();
    int checked = 0;
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
        checked++;
        String name = root.relativize(f).toString().replace('\\', '/');
        int lines = lines(f);
        if (lines > MAX_LINES) {
          tooLong.add("src/main/java/" + name + " has " + lines + " lines (at most " + MAX_LINES
              + "): split it into classes of one concept each");
        }
      }
    }
    assertTrue(checked > 100, "found only " + checked + " files under " + root);
    assertEquals(List.of(), tooLong);
  }

  private static int lines(Path file) throws IOException {
    return Files.readAllLines(file).size();
  }

  /** src/main/java of this module, found from the compiled test classes (target/test-classes). */
  private static Path mainSources() throws URISyntaxException {
    Path testClasses = Path.of(ClassSizeTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path root = testClasses.getParent().getParent().resolve("src/main/java");
    assertTrue(Files.isDirectory(root), "no main sources at " + root);
    return root;
  }
}
