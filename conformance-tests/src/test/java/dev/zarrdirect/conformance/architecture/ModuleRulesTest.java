// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.conformance.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dependency rules of docs/design.md: api imports only the JDK; backends never import core; core
 * never imports a backend; the CLI reaches backends only through the registries; the loader uses api
 * and core only; inside core, the
 * read engine's packages depend downwards only (exec on plan on pipeline).
 */
class ModuleRulesTest {

    static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.zarrdirect");
    }

    @Test
    void theImportFindsEveryModule() {
        // ArchUnit before 1.4.1 silently read nothing from Java 25 class files; make sure the rules see code.
        for (String pkg : new String[]{"dev.zarrdirect.api", "dev.zarrdirect.core", "dev.zarrdirect.core.plan",
                "dev.zarrdirect.core.exec", "dev.zarrdirect.cpu", "dev.zarrdirect.cuda", "dev.zarrdirect.opencl",
                "dev.zarrdirect.cli", "dev.zarrdirect.loader", "dev.zarrdirect.store.cloud"}) {
            assertTrue(classes.stream().anyMatch(c -> c.getPackageName().startsWith(pkg)),
                    "no classes of " + pkg + " were imported; the rules below would check nothing");
        }
    }

    @Test
    void apiDependsOnTheJdkOnly() {
        ArchRule rule = noClasses().that().resideInAPackage("dev.zarrdirect.api..")
                .should().dependOnClassesThat().resideOutsideOfPackages("dev.zarrdirect.api..", "java..", "javax..", "jdk..");
        rule.check(classes);
    }

    @Test
    void backendsNeverImportCore() {
        // benchmark mains live in the benchmarks module under the backends' package names
        noClasses().that().resideInAnyPackage("dev.zarrdirect.cpu..", "dev.zarrdirect.cuda..", "dev.zarrdirect.opencl..")
                .and().resideOutsideOfPackages("..bench..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.zarrdirect.core..", "dev.zarrdirect.cli..")
                .check(classes);
    }

    @Test
    void theReadEngineIsLayeredPipelineThenPlanThenExec() {
        // the codec pipeline knows no plan and no scheduler; plans know no scheduler
        noClasses().that().resideInAPackage("dev.zarrdirect.core.pipeline..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.zarrdirect.core.plan..", "dev.zarrdirect.core.exec..")
                .check(classes);
        noClasses().that().resideInAPackage("dev.zarrdirect.core.plan..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.zarrdirect.core.exec..")
                .check(classes);
    }

    @Test
    void coreNeverImportsABackend() {
        noClasses().that().resideInAPackage("dev.zarrdirect.core..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.zarrdirect.cpu..", "dev.zarrdirect.cuda..",
                        "dev.zarrdirect.opencl..", "dev.zarrdirect.cli..")
                .check(classes);
    }

    @Test
    void theLoaderUsesApiAndCoreOnly() {
        // the loader reaches devices through the context's backend, like any user of the library
        noClasses().that().resideInAPackage("dev.zarrdirect.loader..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.zarrdirect.cpu..", "dev.zarrdirect.cuda..",
                        "dev.zarrdirect.opencl..", "dev.zarrdirect.cli..", "dev.zarrdirect.testkit..")
                .check(classes);
        noClasses().that().resideInAnyPackage("dev.zarrdirect.api..", "dev.zarrdirect.core..")
                .should().dependOnClassesThat().resideInAPackage("dev.zarrdirect.loader..")
                .check(classes);
    }

    @Test
    void theTestingArtifactDependsOnTheApiAlone() {
        // third-party authors add it next to their own code: no engine, no backend, no cycle with core's tests
        noClasses().that().resideInAPackage("dev.zarrdirect.testing..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.zarrdirect.core..", "dev.zarrdirect.cpu..",
                        "dev.zarrdirect.cuda..", "dev.zarrdirect.opencl..", "dev.zarrdirect.cli..",
                        "dev.zarrdirect.loader..", "dev.zarrdirect.testkit..", "dev.zarrdirect.store.cloud..")
                .check(classes);
    }

    @Test
    void theCliReachesBackendsOnlyThroughTheRegistries() {
        noClasses().that().resideInAPackage("dev.zarrdirect.cli..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.zarrdirect.cpu..", "dev.zarrdirect.cuda..",
                        "dev.zarrdirect.opencl..")
                .check(classes);
    }

    @Test
    void objectStoresUseTheApiAloneAndOnlyTheyImportTheCloudSdk() {
        // core finds the provider through ServiceLoader; nothing else may reach the AWS SDK or the provider
        noClasses().that().resideInAPackage("dev.zarrdirect.store.cloud..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.zarrdirect.core..", "dev.zarrdirect.cli..",
                        "dev.zarrdirect.loader..", "dev.zarrdirect.cpu..", "dev.zarrdirect.cuda..", "dev.zarrdirect.opencl..")
                .check(classes);
        noClasses().that().resideInAPackage("dev.zarrdirect..").and().resideOutsideOfPackage("dev.zarrdirect.store.cloud..")
                .should().dependOnClassesThat().resideInAnyPackage("software.amazon..", "dev.zarrdirect.store.cloud..")
                .check(classes);
    }
}
