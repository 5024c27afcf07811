// SPDX-License-Identifier: Apache-2.0
package dev.zarrdirect.testing;

import dev.zarrdirect.api.Device;
import dev.zarrdirect.api.backend.Backend;
import dev.zarrdirect.api.buffer.MemoryKind;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The backend contract passes a correct backend written against the api alone, and each flaw of
 * {@link HostOnlyBackend} fails the test meant to catch it: the contract's tests can fail.
 */
class BackendContractSelfTest {

    /** The contract on {@link HostOnlyBackend}; run through the launcher by the tests below, not on its own. */
    static class HostOnlyBackendContract extends BackendContract {
        @Override
        protected Backend openBackend() {
            return new HostOnlyBackend();
        }

        @Override
        protected void assertNoLiveBuffers(Backend backend) {
            ((HostOnlyBackend) backend).assertNoLiveBuffers();
        }

        @Override
        protected List<Placement> placements(Backend backend) {
            return List.of(new Placement(Device.CPU, MemoryKind.HOST));
        }
    }

    @AfterEach
    void noFlaw() {
        HostOnlyBackend.flaw = HostOnlyBackend.Flaw.NONE;
    }

    /** The names of the contract's test methods that failed with {@code flaw} switched on. */
    private static Set<String> failuresWith(HostOnlyBackend.Flaw flaw) {
        HostOnlyBackend.flaw = flaw;
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(HostOnlyBackendContract.class)).build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener);
        TestExecutionSummary summary = listener.getSummary();
        assertTrue(summary.getTestsSucceededCount() > 20, "the contract ran: " + summary.getTestsSucceededCount()
                + " tests passed with " + flaw);
        Set<String> failed = new TreeSet<>();
        for (TestExecutionSummary.Failure f : summary.getFailures()) {
            String id = f.getTestIdentifier().getUniqueId();
            failed.add(id.replaceAll(".*\\[(?:method|test-factory):([^(]*)\\(.*", "$1"));
        }
        return failed;
    }

    @Test
    void aCorrectBackendOnTheApiAlonePassesEveryTest() {
        assertEquals(Set.of(), failuresWith(HostOnlyBackend.Flaw.NONE));
    }

    @Test
    void aCopyThatWritesPastItsRangeFailsTheCopyTable() {
        Set<String> failed = failuresWith(HostOnlyBackend.Flaw.COPY_OVERRUNS);
        assertTrue(failed.contains("copiesBetweenEveryPairOfPlacementsMoveExactlyTheRangeAskedFor"), failed.toString());
    }

    @Test
    void aFillThatStopsShortFailsTheFillTable() {
        Set<String> failed = failuresWith(HostOnlyBackend.Flaw.FILL_SHORT);
        assertTrue(failed.contains("fillsWriteThePatternCountTimesFromTheOffsetAndNothingElse"), failed.toString());
    }

    @Test
    void aLeakCheckThatSeesNothingFailsTheLeakTest() {
        assertEquals(Set.of("aBufferLeftOpenFailsTheLeakCheckUntilItIsClosed"),
                failuresWith(HostOnlyBackend.Flaw.LEAK_CHECK_BLIND));
    }
}
