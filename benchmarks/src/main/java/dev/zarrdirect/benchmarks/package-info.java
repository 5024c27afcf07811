/**
 * JMH benchmarks for codecs and whole reads on the CPU; run from the shaded jar, never as tests.
 *
 * <h2>Running</h2>
 * {@code mvn -q -B -f benchmarks/pom.xml package && java -jar benchmarks/target/benchmarks.jar}.
 */
package dev.zarrdirect.benchmarks;
