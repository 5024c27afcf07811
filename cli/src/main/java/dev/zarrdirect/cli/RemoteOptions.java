// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import dev.zarrdirect.api.store.StoreOptions;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.net.URI;

/**
 * How commands reach object stores ({@code s3://}, {@code gs://}) and http(s) stores: the AWS CLI's
 * {@code --no-sign-request}, {@code --endpoint-url} and {@code --profile}, and the requests in flight.
 * Unset options leave the standard configuration (AWS_ENDPOINT_URL, AWS_PROFILE, the default
 * credential chain) in charge; the region comes from AWS_REGION or the profile ({@code cat} has a
 * {@code --region} of its own, the selection), else the bucket's own is followed.
 */
final class RemoteOptions {

    @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--no-sign-request",
            description = "Read s3:// and gs:// anonymously, without looking for credentials (public buckets), "
                    + "as the AWS CLI's option of that name.")
    boolean noSignRequest;

    @Option(names = "--endpoint-url", paramLabel = "URL",
            description = "Send object-store requests to this server (an S3-compatible one: MinIO, Ceph, R2, ...) "
                    + "instead of AWS S3 or storage.googleapis.com; AWS_ENDPOINT_URL does the same.")
    String endpointUrl;

    @Option(names = "--profile", paramLabel = "NAME",
            description = "The profile of ~/.aws/credentials and ~/.aws/config to take credentials and region from "
                    + "(for gs://, one holding an HMAC key); default AWS_PROFILE, else default.")
    String profile;

    @Option(names = "--max-requests", paramLabel = "N",
            description = "Requests in flight at once to an object store or http(s) server (default 64); worker "
                    + "threads (--set threads=N) bound how many a read issues.")
    Integer maxRequests;

    /** The options for {@code Stores.open}; a bad value is a usage error naming the option. */
    StoreOptions storeOptions() {
        StoreOptions o = StoreOptions.defaults().withAnonymous(noSignRequest);
        try {
            if (endpointUrl != null) {
                o = o.withEndpoint(URI.create(endpointUrl.strip()));
            }
            if (profile != null) {
                o = o.withProfile(profile);
            }
            if (maxRequests != null) {
                o = o.withMaxRequests(maxRequests);
            }
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        return o;
    }
}
