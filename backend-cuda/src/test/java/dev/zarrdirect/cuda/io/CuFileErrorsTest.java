// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cuda.io;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/** Every CUfileOpError of cufile.h has a name and a meaning, and messages read as the style asks. */
class CuFileErrorsTest {

    @Test
    void handleNotRegisteredReadsAsNameCodeAndMeaning() {
        assertEquals("CU_FILE_HANDLE_NOT_REGISTERED (5027): file descriptor is not registered", CuFileErrors.describe(5027));
    }

    @Test
    void everyCodeFrom5001To5050ExceptTheGapHasAUniqueName() {
        Set<String> names = new HashSet<>();
        for (int c = 5001; c <= 5050; c++) {
            CuFileErrors.Code code = CuFileErrors.opError(c);
            if (c == 5032) {
                assertNull(code, "5032 is unassigned in cufile.h");
                continue;
            }
            assertNotNull(code, "no name for " + c);
            assertTrue(code.name().startsWith("CU_FILE_"), code.name());
            assertFalse(code.meaning().isBlank(), code.name());
            assertTrue(names.add(code.name()), "duplicate " + code.name());
        }
        assertEquals("CU_FILE_DRIVER_NOT_INITIALIZED", CuFileErrors.opError(5001).name());
        assertEquals("CU_FILE_DIO_NOT_SET", CuFileErrors.opError(5020).name());
        assertEquals("CU_FILE_GPU_MEMORY_PINNING_FAILED", CuFileErrors.opError(5036).name());
        assertEquals("CU_FILE_BATCH_NOCOMPAT_ERROR", CuFileErrors.opError(5049).name());
    }

    @Test
    void unknownCodesSayTheyAreUnknown() {
        assertEquals("CUfileOpError 6000 (unknown to this table)", CuFileErrors.describe(6000));
    }

    @Test
    void aNonZeroCuResultIsNamedByTheDriverOrShownAsANumber() {
        assertEquals("CU_FILE_CUDA_DRIVER_ERROR (5011): CUDA driver API call failed (see the CUresult); "
                + "CUresult CUDA_ERROR_INVALID_VALUE (1)", CuFileErrors.describe(5011, 1, rc -> "CUDA_ERROR_INVALID_VALUE"));
        assertEquals("CU_FILE_CUDA_DRIVER_ERROR (5011): CUDA driver API call failed (see the CUresult); CUresult 1",
                CuFileErrors.describe(5011, 1, rc -> null));
        assertEquals("CU_FILE_CUDA_DRIVER_ERROR (5011): CUDA driver API call failed (see the CUresult); CUresult 999",
                CuFileErrors.describe(5011, 999, rc -> "CUresult " + rc));
        assertEquals(CuFileErrors.describe(5027), CuFileErrors.describe(5027, 0, rc -> fail("not asked for 0")));
    }

    @Test
    void readResultsSeparateErrnoFromCuFileErrors() {
        assertTrue(CuFileErrors.readResult(-1, 22).startsWith("errno 22 (EINVAL: "), CuFileErrors.readResult(-1, 22));
        assertEquals(CuFileErrors.describe(5008), CuFileErrors.readResult(-5008, 0));
        assertEquals("errno 77", CuFileErrors.errno(77));
    }

    @Test
    void probeCellsAreShortNames() {
        assertEquals("HANDLE_NOT_REGISTERED 5027", CuFileProbe.shortName(5027));
        assertEquals("CUfileOpError 4999", CuFileProbe.shortName(4999));
    }
}
