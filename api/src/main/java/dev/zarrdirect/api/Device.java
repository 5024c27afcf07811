// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

import java.util.Locale;
import java.util.Objects;

/**
 * One device: a type and an index among the devices of that type ({@code cuda:0}). A value:
 * immutable, compared by type and index, and safe to share between threads. A {@code Device} names
 * a device; it does not check that the device exists (a backend's
 * {@link dev.zarrdirect.api.backend.Backend#devices()} lists those that do).
 *
 * {@snippet :
 * Device gpu = Device.parse("cuda:1");   // new Device(DeviceType.CUDA, 1)
 * gpu.toString();                         // "cuda:1"
 * Device.parse("cpu").equals(Device.CPU); // true
 * }
 *
 * @param type  the device family
 * @param index the ordinal of the device within its family, from 0
 */
public record Device(DeviceType type, int index) {

    /** The host CPU; every buffer in host memory that is not pinned for a GPU lives here. */
    public static final Device CPU = new Device(DeviceType.CPU, 0);

    /**
     * Checks the components.
     *
     * @throws NullPointerException     when {@code type} is null
     * @throws IllegalArgumentException when {@code index} is negative
     */
    public Device {
        Objects.requireNonNull(type, "type");
        if (index < 0) {
            throw new IllegalArgumentException("negative device index " + index);
        }
    }

    /**
     * Parses the {@link #toString()} form, {@code cpu:0}, {@code cuda:1}, or a bare type such as
     * {@code cpu} (index 0). Surrounding blanks and case are ignored ({@code " CUDA:1 "} works); the
     * type names are the {@link DeviceType} constants in lower case.
     *
     * @param text the device as {@code TYPE[:INDEX]}
     * @return the device
     * @throws NullPointerException     when {@code text} is null
     * @throws IllegalArgumentException for an unknown type, an index that is not a number or is
     *                                  negative; the message lists the known types
     */
    public static Device parse(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        int colon = s.indexOf(':');
        String typeName = colon < 0 ? s : s.substring(0, colon);
        int index;
        try {
            index = colon < 0 ? 0 : Integer.parseInt(s.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad device \"" + text + "\": expected TYPE[:INDEX], e.g. cuda:0", e);
        }
        for (DeviceType t : DeviceType.values()) {
            if (t.name().toLowerCase(Locale.ROOT).equals(typeName)) {
                return new Device(t, index);
            }
        }
        throw new IllegalArgumentException("bad device \"" + text + "\": unknown type \"" + typeName
                + "\"; known types are cpu, cuda, cuda_host, opencl, metal, cuda_managed");
    }

    /**
     * Whether the JVM can address this device's memory directly: true for {@link DeviceType#CPU} and
     * {@link DeviceType#CUDA_HOST} (pinned host memory), false for every other type, including
     * {@link DeviceType#CUDA_MANAGED}.
     *
     * @return true for host devices
     */
    public boolean isHost() {
        return type == DeviceType.CPU || type == DeviceType.CUDA_HOST;
    }

    /**
     * The {@code type:index} form that {@link #parse(String)} reads back, type in lower case:
     * {@code cuda:0}, {@code cpu:0}.
     *
     * @return the device as text
     */
    @Override
    public String toString() {
        return type.name().toLowerCase(Locale.ROOT) + ":" + index;
    }
}
