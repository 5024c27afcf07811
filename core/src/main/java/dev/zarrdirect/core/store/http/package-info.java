// SPDX-License-Identifier: Apache-2.0
/**
 * A read-only store over HTTP(S), built on {@link java.net.http.HttpClient}.
 *
 * <h2>What it does</h2>
 * Range requests for partial reads (with a fallback for servers that ignore them), retries with
 * exponential backoff and jitter for 5xx answers, timeouts and broken connections, and a limit on
 * requests in flight. See {@link dev.zarrdirect.core.store.http.HttpStore}.
 *
 * <h2>Settings and lifetime</h2>
 * {@link dev.zarrdirect.core.store.http.HttpStore#open} uses the defaults (5 attempts, 30 s per
 * attempt, 64 requests in flight); {@link dev.zarrdirect.core.store.http.HttpStore#builder} changes
 * them and adds headers such as {@code Authorization}. A store owns an HTTP client and a timer
 * thread: close it when done. A missing key reads as missing ({@code 404}, {@code 410}); every other
 * failure, once the retries are spent, is a {@link dev.zarrdirect.api.StoreException} naming the URL
 * and what each attempt got.
 *
 * <h2>Missing</h2>
 * Listing (HTTP has none), writes, and signed requests to object stores (S3 SigV4).
 */
package dev.zarrdirect.core.store.http;
