package dev.kubeproxy.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docker/Dockerfile's shape, and the consistency of its two ways to the jar: the build stage (the
 * public images' path, Maven in a JDK image) and the jar CI hands in for that stage as a named build
 * context (.ci/image-build). ImageIT builds and runs the image the second way only, so what the
 * first way relies on (its sources in the context, the path of its product) is held here.
 */
@Unit
class DockerfileTest {
  private static final Path DOCKERFILE = Path.of("docker/Dockerfile");

  /** One instruction, its continuation lines joined; {@code stage} is the name of its FROM's stage. */
  private record Instruction(String stage, String keyword, String args) {}

  private static List<Instruction> instructions() throws IOException {
    List<Instruction> out = new ArrayList<>();
    String stage = null;
    StringBuilder pending = new StringBuilder();
    for (String line : Files.readAllLines(DOCKERFILE)) {
      String t = line.strip();
      if (t.startsWith("#") || (t.isEmpty() && pending.isEmpty())) {
        continue;
      }
      if (t.endsWith("\\")) {
        pending.append(t, 0, t.length() - 1).append(' ');
        continue;
      }
      String whole = pending.append(t).toString();
      pending.setLength(0);
      String[] kw = whole.split("\\s+", 2);
      String args = kw.length > 1 ? kw[1] : "";
      if (kw[0].equals("FROM")) {
        Matcher as = Pattern.compile("\\S+\\s+AS\\s+(\\S+)").matcher(args);
        stage = as.matches() ? as.group(1) : "(final)";
      }
      out.add(new Instruction(stage, kw[0], args));
    }
    return out;
  }

  private static List<Instruction> stage(String name) throws IOException {
    return instructions().stream().filter(i -> name.equals(i.stage())).toList();
  }

  private static String pomFinalName() throws IOException {
    Matcher m = Pattern.compile("<finalName>([^<]+)</finalName>").matcher(Files.readString(Path.of("pom.xml")));
    assertTrue(m.find(), "pom.xml names the jar with <finalName>");
    return m.group(1);
  }

  /** A source of a COPY from the main context must exist and not be left out by .dockerignore. */
  private static void assertInContext(String source) throws IOException {
    String path = source.replaceFirst("^\\./", "").replaceFirst("/$", "");
    assertTrue(Files.exists(Path.of(path)), "COPY " + source + ": no such file in the repository");
    for (String entry : Files.readAllLines(Path.of(".dockerignore"))) {
      String e = entry.strip();
      if (!e.isEmpty() && !e.startsWith("#")) {
        assertFalse(path.equals(e) || path.startsWith(e + "/"), "COPY " + source + " is left out by .dockerignore's " + e);
      }
    }
  }

  @Test
  void multiStageOnPublicImagesWithTheNetfilterToolsAndTheLauncher() throws IOException {
    String d = Files.readString(DOCKERFILE);
    // The base images are build arguments (CI gives local ones) whose defaults are the public images.
    assertTrue(d.contains("ARG BUILD_IMAGE=maven:3-eclipse-temurin-17\n"));
    assertTrue(d.contains("ARG RUNTIME_IMAGE=eclipse-temurin:17-jre\n"));
    assertTrue(d.contains("FROM ${BUILD_IMAGE} AS build\n"));
    assertTrue(d.contains("mvn -B -q package -Dmaven.test.skip=true"));
    assertTrue(d.contains("FROM ${RUNTIME_IMAGE}\n"));
    for (String pkg : List.of("iptables", "nftables", "conntrack", "iproute2")) {
      assertTrue(d.matches("(?s).*apt-get install[^\\n]*\\n[^\\n]*\\b" + pkg + "\\b.*"), pkg);
    }
    assertTrue(d.contains("COPY bin/kube-proxy /usr/local/bin/kube-proxy"));
    assertTrue(d.contains("kube-proxy --cds-archive"), "the CDS archive is built into the image");
    assertTrue(d.contains("ENTRYPOINT [\"kube-proxy\"]"), "the image starts the JVM through the launcher");
    assertFalse(d.contains("\"java\""), "no JVM command line of its own");
  }

  @Test
  void theBuildStageLeavesTheJarWhereTheRuntimeStageTakesIt() throws IOException {
    List<Instruction> build = stage("build");
    assertFalse(build.isEmpty(), "a stage named build");
    for (Instruction i : build) {
      if (i.keyword().equals("COPY")) {
        String[] words = i.args().split("\\s+");
        for (int w = 0; w < words.length - 1; w++) {
          assertInContext(words[w]);
        }
      }
    }
    String jar = pomFinalName() + ".jar";
    Instruction packaging = build.stream().filter(i -> i.args().contains("mvn -B -q package")).findFirst().orElse(null);
    assertNotNull(packaging, "the build stage packages the jar with Maven");
    Matcher product = Pattern.compile("mv target/" + Pattern.quote(jar) + " (/\\S+)").matcher(packaging.args());
    assertTrue(product.find(), "the build stage moves Maven's target/" + jar + " to its product path: " + packaging.args());

    List<String> fromBuild = stage("(final)").stream()
        .filter(i -> i.keyword().equals("COPY") && i.args().startsWith("--from="))
        .map(Instruction::args).toList();
    assertEquals(List.of("--from=build " + product.group(1) + " /kube-proxy.jar"), fromBuild,
        "the runtime stage takes the build stage's product, and nothing else from another stage");
  }

  @Test
  void ciHandsInForTheBuildStageTheJarMavenBuiltOnTheHost() throws IOException {
    // The named context "build" replaces the stage: the runtime stage's COPY --from=build /X reads
    // X at that context's root, so the context is the directory where Maven leaves the jar.
    String ci = Files.readString(Path.of(".ci/image-build"));
    Matcher ctx = Pattern.compile("--build-context build=(\\S+)\\)").matcher(ci);
    assertTrue(ctx.find(), ".ci/image-build hands in a build context named build");
    String copy = stage("(final)").stream()
        .filter(i -> i.args().startsWith("--from=build ")).map(Instruction::args).findFirst().orElseThrow();
    String source = copy.split("\\s+")[1];
    assertEquals(ctx.group(1) + "/" + pomFinalName() + ".jar", ctx.group(1) + source,
        "the build stage's product, read at the root of " + ctx.group(1) + "/, is the jar Maven builds there");
    for (Instruction i : stage("(final)")) {
      if (i.keyword().equals("COPY") && !i.args().startsWith("--from=")) {
        assertInContext(i.args().split("\\s+")[0]);
      }
    }
  }
}
