// SPDX-License-Identifier: Apache-2.0
/**
 * Object stores for zarr-direct: {@code s3://bucket/prefix} on AWS S3 and S3-compatible servers, and
 * {@code gs://bucket/prefix} on Google Cloud Storage through its S3-compatible XML API, both on the
 * AWS SDK for Java v2. The module exports nothing: {@code Stores.open} in {@code dev.zarrdirect.core}
 * finds its {@link dev.zarrdirect.api.store.StoreProvider} with {@link java.util.ServiceLoader}, so
 * putting it on the class or module path is all a program does.
 */
module dev.zarrdirect.store.cloud {
    requires dev.zarrdirect.api;
    requires software.amazon.awssdk.services.s3;
    requires software.amazon.awssdk.auth;
    requires software.amazon.awssdk.awscore;
    requires software.amazon.awssdk.core;
    requires software.amazon.awssdk.regions;
    requires software.amazon.awssdk.http;
    requires software.amazon.awssdk.http.apache;
    requires software.amazon.awssdk.profiles;
    requires software.amazon.awssdk.utils;
    requires software.amazon.awssdk.identity.spi;
    requires software.amazon.awssdk.retries.api;

    provides dev.zarrdirect.api.store.StoreProvider with dev.zarrdirect.store.cloud.CloudStoreProvider;
}
