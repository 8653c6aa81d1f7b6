package dev.kubeproxy.architecture;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.kubeproxy.testutil.tier.Unit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package layering of docs/ARCHITECTURE.md: each layer uses only the layers below it, the
 * backends sit side by side, and no package cycle exists. Main code only.
 */
@Unit
class ArchitectureTest {
  private static final String ROOT = "dev.kubeproxy";
  private static JavaClasses classes;

  @BeforeAll
  static void importMainClasses() {
    classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(ROOT);
  }

  @Test
  void noPackageCycle() {
    slices().matching("dev.kubeproxy.(**)").should().beFreeOfCycles().check(classes);
  }

  @Test
  void eachLayerUsesOnlyTheLayersBelowIt() {
    layeredArchitecture().consideringOnlyDependenciesInLayers().withOptionalLayers(true)
        .layer("base").definedBy(p("gotext"), p("net"), p("logging"))
        .layer("host").definedBy(p("host.."))
        .layer("configuration").definedBy(p("config"), p("cli"))
        .layer("meters").definedBy(p("metrics"))
        .layer("model").definedBy(p("model.."), p("messages"))
        .layer("sources").definedBy(p("cluster"))
        .layer("backends").definedBy(p("backend.."))
        .layer("tracers").definedBy(p("trace.."))
        .layer("runtime").definedBy(p("runtime"))
        .layer("consumers").definedBy(p("explain"), p("server"), p("health"))
        .layer("entry").definedBy(ROOT)
        .whereLayer("entry").mayNotBeAccessedByAnyLayer()
        .whereLayer("consumers").mayOnlyBeAccessedByLayers("entry")
        .whereLayer("runtime").mayOnlyBeAccessedByLayers("consumers", "entry")
        .whereLayer("tracers").mayOnlyBeAccessedByLayers("consumers", "entry")
        .whereLayer("backends").mayOnlyBeAccessedByLayers("tracers", "runtime", "consumers", "entry")
        .whereLayer("sources").mayOnlyBeAccessedByLayers("runtime", "consumers", "entry")
        .whereLayer("model").mayOnlyBeAccessedByLayers("sources", "backends", "tracers", "runtime", "consumers", "entry")
        .whereLayer("meters").mayOnlyBeAccessedByLayers("model", "sources", "backends", "runtime", "consumers", "entry")
        .whereLayer("configuration").mayOnlyBeAccessedByLayers(
            "meters", "model", "sources", "backends", "tracers", "runtime", "consumers", "entry")
        .whereLayer("host").mayOnlyBeAccessedByLayers(
            "configuration", "meters", "model", "sources", "backends", "tracers", "runtime", "consumers", "entry")
        .check(classes);
  }

  @Test
  void backendsDoNotImportEachOther() {
    for (String backend : new String[] {"iptables", "nftables", "ipvs", "conntrack"}) {
      noClasses().that().resideInAPackage(p("backend." + backend + ".."))
          .should().dependOnClassesThat().resideInAnyPackage(otherBackends(backend))
          .check(classes);
    }
  }

  @Test
  void hostAccessKnowsNoKubernetesConcept() {
    noClasses().that().resideInAnyPackage(p("host.."), p("net"), p("gotext"), p("logging"))
        .should().dependOnClassesThat().resideInAnyPackage("io.kubernetes..", p("model.."), p("config.."))
        .check(classes);
  }

  @Test
  void theModelKnowsNoVertxServerOrBackend() {
    noClasses().that().resideInAnyPackage(p("model.."))
        .should().dependOnClassesThat().resideInAnyPackage("io.vertx.ext.web..", p("backend.."), p("runtime"),
            p("server"), p("health"), p("explain"))
        .check(classes);
  }

  private static String[] otherBackends(String backend) {
    return java.util.stream.Stream.of("iptables", "nftables", "ipvs", "conntrack")
        .filter(b -> !b.equals(backend)).map(b -> p("backend." + b + "..")).toArray(String[]::new);
  }

  private static String p(String relative) {
    return ROOT + "." + relative;
  }
}
