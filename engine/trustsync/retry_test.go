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
// the relay. The page timeout is the pageTimeoutSeconds setting.
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
			rg := newRig(t, settings.FrontierInterval, w.root, relay.URL)
			rg.runner.cfg.Settings.(*fixedSettings).limits.PageTimeoutSeconds = 1
			start := time.Now()
			cov, err := rg.runner.RunOnce(context.Background())
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			failed := slices.Contains(cov.Reasons, status.RelayFailed(relay.URL))
			if failed != tc.wantFailed || took < tc.minWait {
				t.Fatalf("%d stalled REQs: coverage %+v after %v, want relay failed %v after at least %v",
					tc.stalled, cov, took, tc.wantFailed, tc.minWait)
			}
			if !tc.wantFailed && (cov.State != status.StateComplete || len(rg.sink.ids()) != len(w.want)) {
				t.Fatalf("%d stalled REQs: coverage %+v, %d events stored, want complete with %d",
					tc.stalled, cov, len(rg.sink.ids()), len(w.want))
			}
		})
	}
}
