// SPDX-License-Identifier: Apache-2.0
/**
 * A read-only store over HTTP(S), built on {@link java.net.http.HttpClient}.
 *
 * <h2>What it does</h2>
 * Range requests for partial reads (with a fallback for servers that ignore them), retries with
 * exponential backoff and jitter for 5xx answers, timeouts and broken connections, and a limit on
 * requests in flight. See {@link dev.zarrdirect.core.store.http.HttpStore}.
 *
 * <h2>Missing</h2>
 * Listing (HTTP has none), writes, and signed requests to object stores (S3 SigV4).
 */
package dev.zarrdirect.core.store.http;
