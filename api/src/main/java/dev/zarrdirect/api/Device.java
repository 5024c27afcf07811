// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api;

import java.util.Locale;
import java.util.Objects;

/**
 * One device: a type and an index among the devices of that type ({@code cuda:0}).
 *
 * @param type  the device family
 * @param index the ordinal of the device within its family, from 0
 */
public record Device(DeviceType type, int index) {

    /** The host CPU; every buffer in host memory that is not pinned for a GPU lives here. */
    public static final Device CPU = new Device(DeviceType.CPU, 0);

    public Device {
        Objects.requireNonNull(type, "type");
        if (index < 0) {
            throw new IllegalArgumentException("negative device index " + index);
        }
    }

    /** Parses the {@link #toString()} form, {@code cpu:0}, {@code cuda:1}, or a bare {@code cpu}. */
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

    /** True for devices whose memory the JVM can address directly. */
    public boolean isHost() {
        return type == DeviceType.CPU || type == DeviceType.CUDA_HOST;
    }

    @Override
    public String toString() {
        return type.name().toLowerCase(Locale.ROOT) + ":" + index;
    }
}
