// SPDX-License-Identifier: Apache-2.0
/**
 * The object-store benchmark (tools/gpu/s3-bench.sh): {@link dev.zarrdirect.benchmarks.s3.MiniS3Server},
 * a read-only S3 endpoint over a local directory with no dependency beyond the JDK (so that the GPU
 * machine's carried pack need not hold a full S3 server), and
 * {@link dev.zarrdirect.benchmarks.s3.S3ReadBench}, zarr-direct reading an array through {@code s3://}
 * from it. TensorStore's {@code s3} driver reads the same store from the same server
 * (benchmarks/python/s3_ts_read.py).
 */
package dev.zarrdirect.benchmarks.s3;
