// SPDX-License-Identifier: Apache-2.0
/**
 * The contract of zarr-direct: devices, data types, tensors, buffers, stores, codecs and backends,
 * and the exceptions every other module throws. It depends on nothing beyond {@code java.base}, so
 * that a codec or store plugin can be written against it alone.
 */
module dev.zarrdirect.api {
    exports dev.zarrdirect.api;
    exports dev.zarrdirect.api.backend;
    exports dev.zarrdirect.api.buffer;
    exports dev.zarrdirect.api.codec;
    exports dev.zarrdirect.api.codec.spec;
    exports dev.zarrdirect.api.dlpack;
    exports dev.zarrdirect.api.settings;
    exports dev.zarrdirect.api.store;
}
