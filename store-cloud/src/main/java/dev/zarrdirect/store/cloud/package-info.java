// SPDX-License-Identifier: Apache-2.0
/**
 * Object stores on the AWS SDK for Java v2: {@link dev.zarrdirect.store.cloud.S3Store} and the
 * provider that opens it for {@code s3://} and {@code gs://} locations.
 *
 * <h2>Configuration</h2>
 * {@link dev.zarrdirect.store.cloud.S3Config} turns a location and its
 * {@link dev.zarrdirect.api.store.StoreOptions} into a client: for {@code s3://} the standard AWS
 * configuration (default credential chain, profiles, {@code AWS_REGION}, {@code AWS_ENDPOINT_URL});
 * for {@code gs://} the XML API of Google Cloud Storage ({@code https://storage.googleapis.com},
 * path style) with HMAC keys, or anonymous. It also says, for {@code zarr-direct doctor}, where each
 * part of the configuration came from, never showing a secret.
 *
 * <h2>Requests</h2>
 * Reads are ranged {@code GET}s, at most a configured number in flight per store, each attempt
 * bounded in time and retried with backoff on throttling, server errors and broken connections
 * ({@link dev.zarrdirect.store.cloud.Retrier}); the SDK's own retries are off so that one loop
 * counts and reports every attempt. Writes put each key whole (multipart above a size), so that no
 * reader sees part of a value.
 *
 * <h2>Not exported</h2>
 * The module exports nothing: {@code Stores.open} finds the provider through
 * {@link java.util.ServiceLoader}. Tests reach the classes on the class path.
 */
package dev.zarrdirect.store.cloud;
