package trustsync

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"dtp-personal/engine/store"
)

// A family run several times in a pass is recorded whole on a relay only
// where every run was swept, with the earliest check among them: a relay
// that missed a run (it failed, or was skipped) is left out.
func TestWholeSweepNeedsEveryRun(t *testing.T) {
	st := openStore(t)
	now := time.Now()
	p := &pass{r: &Runner{cfg: Config{Store: st}}, start: now}
	day := utcDay(now.Unix())
	key := func(i int) string { return fmt.Sprintf("%064x", i) }
	runs := [][]string{{key(1)}, {key(2), key(3)}}
	for i, keys := range runs {
		p.sweeps.ran(trustFamily.scope)
		for _, url := range []string{"wss://one", "wss://two"} {
			if url == "wss://two" && i == 1 {
				continue // two missed the second run
			}
			sw := store.Sweep{Relay: url, Scope: trustFamily.scope, Keys: store.SumKeys(keys), Day: day, Checked: now.Unix() - int64(10*(i+1))}
			if err := st.SaveSweep(sw); err != nil {
				t.Fatal(err)
			}
			p.sweeps.note(sw)
		}
	}
	whole := slices.Concat(runs...)
	if err := p.recordWhole(&trustFamily, whole); err != nil {
		t.Fatal(err)
	}
	if sw, ok, err := st.Sweep("wss://one", trustFamily.scope, store.SumKeys(whole), day); err != nil || !ok || sw.Checked != now.Unix()-20 {
		t.Fatalf("relay one, swept in every run: %+v found %v (err %v), want the whole recorded, checked at the earliest", sw, ok, err)
	}
	if _, ok, err := st.Sweep("wss://two", trustFamily.scope, store.SumKeys(whole), day); err != nil || ok {
		t.Fatalf("relay two, which missed a run: whole found %v (err %v), want not", ok, err)
	}
}
