// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.loader.dataset;

import dev.zarrdirect.core.ZarrArray;
import dev.zarrdirect.core.grid.Shapes;

import java.util.ArrayList;
import java.util.List;

/**
 * Which axis of a variable's array is time and which, if any, is the channel (or level) axis: the
 * last two are always latitude and longitude, time is found from the spec's {@code time_dim}, and
 * in a 4-dimensional array the remaining axis holds the channels.
 *
 * @param time    the time axis, 0 or 1
 * @param channel the channel axis, or -1 for a {@code [time, lat, lon]} array
 */
record AxisRoles(int time, int channel) {

    /** The name of the dimension taken as time when the spec names none. */
    static final String DEFAULT_TIME_NAME = "time";

    /**
     * The roles of the axes of {@code array}, the variable {@code variable}.
     *
     * @param timeDim null (a dimension named {@code time}, else axis 0), a dimension name, or a decimal
     *                index (so a dimension whose name is all digits can only be given by its index)
     * @throws IllegalArgumentException naming the variable and array, when the rank is not 3 or 4, the
     *                                  time dimension is not there, or it is one of the last two axes
     */
    static AxisRoles of(String variable, ZarrArray array, String timeDim) {
        int rank = array.rank();
        if (rank != 3 && rank != 4) {
            throw new IllegalArgumentException("variable \"" + variable + "\" (" + array.describe() + ") has shape "
                    + Shapes.format(array.shape()) + " of rank " + rank + "; the loader reads arrays of rank 3"
                    + " [time, lat, lon] or 4 [time, channel or level, lat, lon]");
        }
        List<String> names = dimensionNames(array);
        int time = timeAxis(variable, array, names, timeDim);
        if (time >= rank - 2) {
            throw new IllegalArgumentException("the time axis of variable \"" + variable + "\" (" + array.describe()
                    + ", dimensions " + describeNames(names) + ") is axis " + time + ", one of the last two,"
                    + " which must be latitude and longitude; for rank " + rank + " time must be "
                    + (rank == 3 ? "axis 0" : "axis 0 or 1"));
        }
        return new AxisRoles(time, rank == 4 ? 1 - time : -1);
    }

    private static int timeAxis(String variable, ZarrArray array, List<String> names, String timeDim) {
        int rank = array.rank();
        if (timeDim == null) {
            int i = names == null ? -1 : names.indexOf(DEFAULT_TIME_NAME);
            return Math.max(i, 0);
        }
        if (!timeDim.isEmpty() && timeDim.chars().allMatch(c -> c >= '0' && c <= '9')) {
            int axis;
            try {
                axis = Integer.parseInt(timeDim);
            } catch (NumberFormatException e) {
                axis = Integer.MAX_VALUE;
            }
            if (axis >= rank) {
                throw new IllegalArgumentException("time_dim " + timeDim + " is not an axis of variable \"" + variable
                        + "\": " + array.describe() + " has rank " + rank + " (dimensions " + describeNames(names)
                        + ")");
            }
            return axis;
        }
        if (names == null) {
            throw new IllegalArgumentException("time_dim \"" + timeDim + "\" cannot be found in variable \"" + variable
                    + "\": " + array.describe() + " has no dimension names (neither v3 dimension_names nor a v2"
                    + " _ARRAY_DIMENSIONS attribute); give time_dim as an axis index instead, such as 0");
        }
        int i = names.indexOf(timeDim);
        if (i < 0) {
            throw new IllegalArgumentException("variable \"" + variable + "\" has no dimension named \"" + timeDim
                    + "\": the dimensions of " + array.describe() + " are " + describeNames(names)
                    + "; give one of them or an axis index as time_dim");
        }
        return i;
    }

    /**
     * The dimension names of {@code array}: the v3 {@code dimension_names}, else the
     * {@code _ARRAY_DIMENSIONS} attribute that xarray writes to v2 arrays (and sometimes keeps in v3);
     * null when there are neither. A name may be null (an unnamed dimension).
     *
     * @throws IllegalArgumentException if {@code _ARRAY_DIMENSIONS} is not a list of one string per dimension
     */
    static List<String> dimensionNames(ZarrArray array) {
        List<String> v3 = array.metadata().dimensionNames();
        if (v3 != null) {
            return v3;
        }
        Object attribute = array.attributes().get("_ARRAY_DIMENSIONS");
        if (attribute == null) {
            return null;
        }
        if (attribute instanceof List<?> list && list.size() == array.rank()
                && list.stream().allMatch(n -> n == null || n instanceof String)) {
            List<String> names = new ArrayList<>(list.size());
            for (Object n : list) {
                names.add((String) n);
            }
            return names;
        }
        throw new IllegalArgumentException("the _ARRAY_DIMENSIONS attribute of " + array.describe() + " is "
                + attribute + ", not one name per dimension of its shape " + Shapes.format(array.shape()));
    }

    private static String describeNames(List<String> names) {
        return names == null ? "unnamed" : names.toString();
    }
}
