// SPDX-License-Identifier: Apache-2.0
/**
 * JMH benchmarks for codecs and whole reads on the CPU; run from the shaded jar, never as tests.
 *
 * <h2>Running</h2>
 * {@code mvn -q -B -pl benchmarks -am -DskipTests package && java -jar benchmarks/target/benchmarks.jar}
 * (from the root: the module needs its reactor siblings, testkit among them). The bench mains in
 * {@code dev.zarrdirect.cpu.bench}, {@code dev.zarrdirect.cuda.bench} and {@code dev.zarrdirect.opencl.bench}
 * run on the class path instead, as does {@link dev.zarrdirect.benchmarks.GatherBench} (the loader's
 * plane gather on any backend: {@code GatherBench [backend] [planes] [elements] [float32|float64]}).
 */
package dev.zarrdirect.benchmarks;
