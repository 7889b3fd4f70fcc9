package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// BenchmarkRenderDuringSync is the UI thread's work per status update while
// a large sync runs: counters, progress and relay figures change on every
// snapshot, everything else stays. ns/op is what one update costs the loop.
func BenchmarkRenderDuringSync(b *testing.B) {
	app := test.NewTempApp(b)
	g := New(app, &fakeEngine{}, nil)
	g.win.Resize(fyne.NewSize(1040, 720))
	g.win.Show()
	s := fixture()
	i := 0
	for b.Loop() {
		i++
		s.Ingest.Accepted += 731
		s.Ingest.Duplicates += 3
		s.Ingest.AcceptedPerSec = float64(1000 + i%97)
		s.Progress.Done = i % s.Progress.Total
		s.Relays[0].EventsFetched += 734
		s.Heap.Nodes += 7
		s.Heap.Edges += 731
		s.Heap.GraphVersion++
		s.LastSync = fixtureNow.Unix() - int64(i%60)
		g.render(s)
	}
}

// BenchmarkTabSwitch is the UI thread's work to bring up another tab.
func BenchmarkTabSwitch(b *testing.B) {
	app := test.NewTempApp(b)
	g := New(app, &fakeEngine{}, nil)
	g.win.Resize(fyne.NewSize(1040, 720))
	g.win.Show()
	g.render(fixture())
	i := 0
	for b.Loop() {
		i++
		g.tabs.SelectIndex([]int{tabActivity, tabSettings, tabStatus}[i%3])
	}
}
