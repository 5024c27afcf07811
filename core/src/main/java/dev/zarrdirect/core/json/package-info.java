// SPDX-License-Identifier: Apache-2.0
/**
 * JSON for Zarr metadata documents, as plain Java values.
 *
 * <h2>Value model</h2>
 * {@link dev.zarrdirect.core.json.Json#parse(String)} turns a document into
 * {@code LinkedHashMap<String,Object>} (objects, keys in document order), {@code ArrayList<Object>},
 * {@code String}, {@code Long} (or {@code BigInteger} past the range of {@code long}),
 * {@code Double}, {@code Boolean} and {@code null}. {@link dev.zarrdirect.core.json.Json#write(Object)}
 * writes the same model back, deterministically, so a parsed document round-trips.
 *
 * <h2>Strictness</h2>
 * Duplicate keys and trailing content are errors, reported with line and column in a
 * {@link dev.zarrdirect.core.json.JsonException}. The bare tokens {@code NaN} and {@code Infinity}
 * are read (Python's {@code json} module writes them into attributes) but never written: Zarr
 * spells such values as strings.
 *
 * <h2>Field helpers</h2>
 * {@code Json.object}, {@code Json.longValue}, ... check one field's type and throw an
 * {@link dev.zarrdirect.api.InvalidMetadataException} that names the field, the document and the
 * value seen. Their {@code where} argument reads like {@code "fill_value" in "t2m/zarr.json"}; build it
 * with {@link dev.zarrdirect.core.json.Json#where(String, String)} and
 * {@link dev.zarrdirect.core.json.Json#child(String, String)}.
 */
package dev.zarrdirect.core.json;
