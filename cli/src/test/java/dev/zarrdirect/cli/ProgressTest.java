// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProgressTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void aQuickJobOnANonTerminalPrintsOnlyTheFinalLine() {
        StringWriter w = new StringWriter();
        AtomicLong now = new AtomicLong();
        Progress p = new Progress(new PrintWriter(w), false, "reading", "steps", 96, now::get, 5 * SECOND);

        for (int i = 1; i <= 96; i++) {
            now.addAndGet(SECOND / 100);
            p.update(i, i * 1000L);
        }
        p.update(96, 96_000L);
        p.finish();

        assertEquals(1, w.toString().lines().count(), w.toString());
        assertTrue(w.toString().startsWith("reading [##############################] 96/96 steps"), w.toString());
    }

    @Test
    void aLongJobOnANonTerminalPrintsAtMostOneLineEveryInterval() {
        StringWriter w = new StringWriter();
        AtomicLong now = new AtomicLong();
        Progress p = new Progress(new PrintWriter(w), false, "writing", "steps", 60, now::get, 5 * SECOND);

        for (int i = 1; i <= 60; i++) {
            now.addAndGet(SECOND / 2); // 30 s in all
            p.update(i, 0);
        }

        // one line each 5 s (6), the last of which is the final one
        assertEquals(6, w.toString().lines().count(), w.toString());
        assertTrue(w.toString().lines().reduce((a, b) -> b).orElseThrow().contains("] 60/60 steps"), w.toString());
    }

    @Test
    void aQuickConversionOnANonTerminalPrintsOnlyTheFinalLine() {
        StringWriter w = new StringWriter();
        ConvertProgress p = new ConvertProgress(new PrintWriter(w), false, "chunks", 30, 0);

        for (int i = 0; i < 30; i++) {
            p.add(1, 1000);
        }
        p.finish();

        assertEquals(1, w.toString().lines().count(), w.toString());
        assertTrue(w.toString().startsWith("converting [##############################] 30/30 chunks"), w.toString());
    }

    @Test
    void onlyWhenSlowPrintsNothingForAQuickJobAndReportsASlowOneToTheEnd() {
        for (boolean terminal : new boolean[]{false, true}) {
            StringWriter quick = new StringWriter();
            AtomicLong now = new AtomicLong();
            Progress q = new Progress(new PrintWriter(quick), terminal, "pass", "MiB", 10, now::get, 5 * SECOND).onlyWhenSlow();
            for (int i = 1; i <= 10; i++) {
                now.addAndGet(SECOND / 10);
                q.update(i, i);
            }
            q.finish();
            assertEquals("", quick.toString(), "terminal " + terminal);

            StringWriter slow = new StringWriter();
            Progress s = new Progress(new PrintWriter(slow), terminal, "pass", "MiB", 10, now::get, 5 * SECOND).onlyWhenSlow();
            for (int i = 1; i <= 10; i++) {
                now.addAndGet(SECOND);
                s.update(i, i);
            }
            s.finish();
            assertTrue(slow.toString().contains("10/10 MiB"), "terminal " + terminal + ": " + slow);
            assertTrue(slow.toString().contains("/10 MiB") && !slow.toString().startsWith("pass [####################"
                    + "##########] 10/10"), "terminal " + terminal + ": an intermediate line came first: " + slow);
        }
    }
}
