// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.api.store;

import dev.zarrdirect.api.InvalidKeyException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StoreKeysTest {

    private static final String STORE = "MemoryStore(test)";

    @Test
    void ordinaryZarrKeysAreAccepted() {
        for (String key : new String[]{"zarr.json", "t2m/zarr.json", "t2m/c/0/3/1", "a/b.c/d", "..a", "a..", ".zattrs",
                "x/.zgroup", "0.0.0"}) {
            assertEquals(key, StoreKeys.validate(STORE, key));
        }
    }

    @Test
    void keysThatCouldLeaveTheStoreRootAreRefusedNamingStoreKeyAndReason() {
        refused("/etc/passwd", "leading /");
        refused("..", "\"..\"");
        refused("a/../../b", "\"..\"");
        refused("a/./b", "\".\"");
        refused(".", "\".\"");
        refused("a\\b", "backslash");
        refused("..\\x", "backslash");
        refused("a\0b", "NUL");
        refused("C:/x", "drive");
        refused("a//b", "empty path segment");
        refused("a/", "empty path segment");
        refused("", "non-empty");
    }

    @Test
    void nullKeyIsRefusedLikeAnEmptyOne() {
        InvalidKeyException e = assertThrows(InvalidKeyException.class, () -> StoreKeys.validate(STORE, null));
        assertTrue(e.getMessage().contains("non-empty"), e.getMessage());
    }

    @Test
    void prefixesMayBeEmptyOrEndInASlashButFollowTheKeyRules() {
        assertEquals("", StoreKeys.validatePrefix(STORE, ""));
        assertEquals("t2m/", StoreKeys.validatePrefix(STORE, "t2m/"));
        assertEquals("t2m/c", StoreKeys.validatePrefix(STORE, "t2m/c"));
        assertThrows(InvalidKeyException.class, () -> StoreKeys.validatePrefix(STORE, "../"));
        assertThrows(InvalidKeyException.class, () -> StoreKeys.validatePrefix(STORE, "/"));
        assertThrows(InvalidKeyException.class, () -> StoreKeys.validatePrefix(STORE, "a//"));
    }

    private static void refused(String key, String why) {
        InvalidKeyException e = assertThrows(InvalidKeyException.class, () -> StoreKeys.validate(STORE, key));
        assertTrue(e.getMessage().contains(STORE), e.getMessage());
        assertTrue(e.getMessage().contains(why), "expected \"" + why + "\" in: " + e.getMessage());
        assertEquals(STORE, e.store());
        assertEquals(key, e.key());
    }
}
