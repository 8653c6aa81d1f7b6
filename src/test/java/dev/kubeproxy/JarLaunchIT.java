package dev.kubeproxy;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The packaged jar exists when the integration tests run (failsafe runs after package). */
class JarLaunchIT {
  @Test
  void packagedJarIsBuiltBeforeIntegrationTests() {
    assertTrue(Files.isRegularFile(Path.of("target", "kube-proxy.jar")), "target/kube-proxy.jar missing");
  }
}
