// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.dataset;

import dev.zarrdirect.api.DataType;
import dev.zarrdirect.core.ZarrArray;

import java.util.Arrays;
import java.util.Objects;

/**
 * One variable of a {@link WindowDataset}: an array of the group, which of its axes are time and
 * channel, and which of its channels go where in the output. Its channels occupy output channels
 * {@code firstOutputChannel … firstOutputChannel + channels.length − 1}, in the order of
 * {@code channels}. Immutable ({@code channels} is copied in and out).
 *
 * @param name               the variable as the spec names it: the array's path relative to the group
 * @param array              the array
 * @param timeAxis           the time axis (0, or 1 when the channel axis comes first)
 * @param channelAxis        the channel (or level) axis, or -1 for a {@code [time, lat, lon]} array
 * @param channels           the source indices along the channel axis, in output order; {@code {0}}
 *                           for an array without a channel axis
 * @param firstOutputChannel the output channel of {@code channels[0]}
 */
public record Variable(String name, ZarrArray array, int timeAxis, int channelAxis, int[] channels,
                       int firstOutputChannel) {

    public Variable {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(array, "array");
        channels = channels.clone();
        if (channels.length == 0) {
            throw new IllegalArgumentException("variable \"" + name + "\" has no channels selected");
        }
        if (channelAxis < 0 && !Arrays.equals(channels, new int[]{0})) {
            throw new IllegalArgumentException("variable \"" + name + "\" has no channel axis, so its only channel is 0,"
                    + " not " + Arrays.toString(channels));
        }
    }

    @Override
    public int[] channels() {
        return channels.clone();
    }

    /** Output channels this variable contributes. */
    public int channelCount() {
        return channels.length;
    }

    /** The source index along the channel axis of this variable's {@code k}-th output channel. */
    public int channel(int k) {
        return channels[k];
    }

    public boolean hasChannelAxis() {
        return channelAxis >= 0;
    }

    /** The element type of the array: float32 or float64. */
    public DataType dataType() {
        return array.dataType();
    }

    /** The name of this variable's {@code k}-th output channel: {@code t2m} without a channel axis, else {@code u[3]}. */
    public String channelName(int k) {
        return hasChannelAxis() ? name + "[" + channels[k] + "]" : name;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Variable v && v.name.equals(name) && v.array == array && v.timeAxis == timeAxis
                && v.channelAxis == channelAxis && Arrays.equals(v.channels, channels)
                && v.firstOutputChannel == firstOutputChannel;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, System.identityHashCode(array), timeAxis, channelAxis, Arrays.hashCode(channels),
                firstOutputChannel);
    }

    @Override
    public String toString() {
        return "Variable[" + name + " " + array + ", time axis " + timeAxis
                + (hasChannelAxis() ? ", channel axis " + channelAxis + " " + Arrays.toString(channels) : "")
                + ", output channels from " + firstOutputChannel + "]";
    }
}
