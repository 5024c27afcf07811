// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.spark;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The spark module's place on the design map: it uses api, core's exported packages and the loader,
 * as any user of the library does, and reaches backends only through contexts. (The module rules of
 * conformance-tests do not see this module: depending on it there would put Spark on that module's
 * class path.)
 */
class SparkModuleRulesTest {

    @Test
    void sparkUsesApiCoreAndTheLoaderOnly() throws Exception {
        // the module's own classes only: scanning the class path for the package would read Spark's ~170 jars
        JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPath(Path.of(ZarrDataSource.class.getProtectionDomain().getCodeSource().getLocation().toURI()));
        assertFalse(classes.isEmpty(), "no classes of dev.zarrdirect.spark were imported; the rule would check nothing");
        noClasses().that().resideInAPackage("dev.zarrdirect.spark..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.zarrdirect.cpu..", "dev.zarrdirect.cuda..",
                        "dev.zarrdirect.opencl..", "dev.zarrdirect.cli..", "dev.zarrdirect.testkit..",
                        "dev.zarrdirect.core.pipeline..", "dev.zarrdirect.core.exec..", "dev.zarrdirect.core.codec..",
                        "dev.zarrdirect.core.json..")
                .check(classes);
    }
}
