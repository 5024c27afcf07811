// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.store.cloud;

import dev.zarrdirect.api.StoreException;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * Runs one request with a permit (at most {@code maxRequests} in flight per store) and retries it,
 * with exponential backoff and jitter, on what is worth another attempt: throttling ({@code 429},
 * {@code SlowDown}), server errors ({@code 5xx} but 501), request timeouts and broken or stalled
 * connections. Everything else is the caller's to report. When the attempts are spent, the
 * {@link StoreException} names the store, the key, the operation and what each attempt got.
 * Thread-safe.
 */
final class Retrier {

    private static final Set<String> RETRYABLE_CODES = Set.of("SlowDown", "Throttling", "ThrottlingException",
            "RequestTimeout", "RequestTimeoutException", "InternalError", "ServiceUnavailable", "RequestLimitExceeded",
            "TooManyRequests");

    private final String store;
    private final Semaphore permits;
    private final int maxAttempts;
    private final long baseDelayMillis;
    private final long maxDelayMillis;
    private final Runnable ensureOpen;

    Retrier(String store, int maxRequests, int maxAttempts, long baseDelayMillis, long maxDelayMillis,
            Runnable ensureOpen) {
        this.store = store;
        this.permits = new Semaphore(maxRequests);
        this.maxAttempts = maxAttempts;
        this.baseDelayMillis = baseDelayMillis;
        this.maxDelayMillis = maxDelayMillis;
        this.ensureOpen = ensureOpen;
    }

    /** Requests in flight now, for tests. */
    int inFlight(int maxRequests) {
        return maxRequests - permits.availablePermits();
    }

    /**
     * Runs {@code request} until it returns, throws something not worth retrying (passed on as it
     * is), or the attempts are spent.
     *
     * @param what the request in words for messages: {@code GET s3://b/p/t2m/c/0 (bytes 0-100)}
     */
    <T> T run(String key, String what, Supplier<T> request) {
        List<String> failures = new ArrayList<>();
        for (int attempt = 1; ; attempt++) {
            try {
                permits.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StoreException(store, key, "interrupted while waiting to send " + what + " in " + store, e);
            }
            try {
                return request.get();
            } catch (SdkException e) {
                if (!retryable(e)) {
                    throw e;
                }
                ensureOpen.run();
                failures.add(describe(e));
            } finally {
                permits.release();
            }
            if (attempt >= maxAttempts) {
                throw new StoreException(store, key, what + " in " + store + " failed after " + attempt
                        + (attempt == 1 ? " attempt: " : " attempts: ") + summarize(failures));
            }
            sleep(backoff(attempt), key, what);
        }
    }

    /** Whether another attempt may succeed. */
    static boolean retryable(SdkException e) {
        if (e instanceof S3Exception s3) {
            int status = s3.statusCode();
            String code = s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorCode();
            return status == 408 || status == 429 || (status >= 500 && status != 501 && status != 505)
                    || (code != null && RETRYABLE_CODES.contains(code));
        }
        if (e instanceof AbortedException) {
            // The SDK aborts a request when the thread is interrupted or the store closes.
            return false;
        }
        if (e instanceof ApiCallAttemptTimeoutException) {
            return true;
        }
        if (e instanceof SdkClientException) {
            for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
                if (t instanceof InterruptedIOException && !(t instanceof java.net.SocketTimeoutException)) {
                    return !Thread.currentThread().isInterrupted();
                }
                if (t instanceof IOException) {
                    return true;
                }
            }
        }
        return false;
    }

    /** One attempt's failure in words: {@code HTTP 503 (SlowDown)}, {@code read timed out}. */
    static String describe(SdkException e) {
        if (e instanceof S3Exception s3) {
            String code = s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorCode();
            return "HTTP " + s3.statusCode() + (code == null || code.isEmpty() ? "" : " (" + code + ")");
        }
        if (e instanceof ApiCallAttemptTimeoutException) {
            return "the attempt timed out";
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root instanceof java.net.ConnectException) {
            return "connection refused (is the server running, and is the endpoint right?)";
        }
        if (root instanceof java.net.SocketTimeoutException) {
            return "no answer within the request timeout (" + root.getMessage() + ")";
        }
        if (root instanceof java.net.UnknownHostException) {
            return "unknown host " + root.getMessage() + " (check the endpoint and the network)";
        }
        String msg = root.getMessage();
        return root.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
    }

    /** The failures of every attempt, identical ones counted once. */
    static String summarize(List<String> failures) {
        if (failures.stream().distinct().count() == 1) {
            return failures.getFirst() + (failures.size() > 1 ? " (all " + failures.size() + " attempts)" : "");
        }
        return "last: " + failures.getLast() + "; all: " + String.join("; ", failures);
    }

    /** Doubling from the base, capped, jittered into its upper half. */
    private long backoff(int attempt) {
        long delay = attempt - 1 >= 62 || baseDelayMillis > (maxDelayMillis >> Math.min(62, attempt - 1))
                ? maxDelayMillis : Math.min(maxDelayMillis, baseDelayMillis << (attempt - 1));
        return delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
    }

    private void sleep(long millis, String key, String what) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException(store, key, "interrupted while waiting to retry " + what + " in " + store, e);
        }
        ensureOpen.run();
    }
}
