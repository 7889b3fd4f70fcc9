package trustsync

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// TestPageTimeoutIsRetried (issue 9 item 17): a page that times out is asked
// again, 0.5 s then 1 s later; only the third timeout in a row counts against
// the relay. The page timeout is the pageTimeoutSeconds setting, read at each
// connection: here it is lowered from 30 s to 1 s after the relay's link
// exists, and the pass takes the new one (issue 28: before, the link kept 30 s).
func TestPageTimeoutIsRetried(t *testing.T) {
	for _, tc := range []struct {
		stalled    int // REQs the relay never answers before it behaves
		wantFailed bool
		minWait    time.Duration // timeouts plus the retry waits (−20%)
	}{
		{0, false, 0},
		{1, false, time.Second + 400*time.Millisecond},
		{2, false, 2*time.Second + 1200*time.Millisecond},
		{3, true, 3*time.Second + 1200*time.Millisecond},
	} {
		t.Run(fmt.Sprint(tc.stalled, " stalled"), func(t *testing.T) {
			t.Parallel()
			now := time.Now().Unix()
			w := buildWoT(now)
			relay := faultrelay.StartForTest(t, faultrelay.Mode{StallFirst: tc.stalled}, w.all...)
			rg := newRigWith(t, settings.DefaultLimits(), settings.FrontierInterval, w.root, relay.URL) // 30 s
			rg.setPageTimeout(1)                                                                        // the relay's link exists

			start := time.Now()
			cov, err := rg.runner.RunOnce(context.Background())
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			failed := slices.Contains(cov.Reasons, status.RelayFailed(relay.URL))
			// the timeouts and waits, and 3 s for a busy machine; 30 s timeouts take 30 s each
			maxWait := tc.minWait + 3*time.Second
			if failed != tc.wantFailed || took < tc.minWait || took > maxWait {
				t.Fatalf("%d stalled REQs: coverage %+v after %v, want relay failed %v after %v to %v",
					tc.stalled, cov, took, tc.wantFailed, tc.minWait, maxWait)
			}
			if !tc.wantFailed && (cov.State != status.StateComplete || len(rg.sink.ids()) != len(w.want)) {
				t.Fatalf("%d stalled REQs: coverage %+v, %d events stored, want complete with %d",
					tc.stalled, cov, len(rg.sink.ids()), len(w.want))
			}
		})
	}
}
