package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"dtp-personal/engine/status"
)

// feed renders a snapshot a second for secs seconds from start, the
// counters growing by the given rates; it returns the time after the last.
func feed(g *GUI, start time.Time, secs int, base status.Snapshot, accepted, duplicates, rejected int64) time.Time {
	now := start
	for i := range secs {
		now = start.Add(time.Duration(i) * time.Second)
		g.clock.now = func() time.Time { return now }
		s := base
		s.Ingest.Accepted += int64(i) * accepted
		s.Ingest.Duplicates += int64(i) * duplicates
		s.Ingest.Rejected += int64(i) * rejected
		g.render(s)
	}
	return now
}

func TestRateChartDrawsTheLast15MinutesOfSnapshots(t *testing.T) {
	g, _ := newTestGUI(t, tabActivity)
	g.rates = rateHistory{}
	g.showTab(tabActivity, 1000, 700)
	feed(g, fixtureNow, 20*60, fixture(), 10, 2, 0)

	points := g.rates.points()
	if n := len(points); n < 170 || n > 182 {
		t.Fatalf("%d points for 15 min at one per 5 s", n)
	}
	for _, p := range points {
		if p.ago < 0 || p.ago > rateWindow || p.accepted != 10 || p.duplicates != 2 || p.rejected != 0 {
			t.Fatalf("point %+v, want 10/2/0 per second within 15 min", p)
		}
	}
	r := test.WidgetRenderer(g.activity.chart).(*rateChartRenderer)
	if got := r.top.Text; got != "10.0 events/s" {
		t.Errorf("scale top %q", got)
	}
	size := g.activity.chart.Size()
	for si, lines := range r.lines {
		n := 0
		for _, o := range r.Objects() {
			for _, l := range lines[:len(points)-1] {
				if o == l {
					n++
				}
			}
		}
		if n != len(points)-1 {
			t.Errorf("series %s: %d lines drawn, want %d", rateSeries[si].name, n, len(points)-1)
		}
		last := lines[len(points)-2].Position2
		if last.X < size.Width-1 || last.Y < 0 || last.Y > size.Height {
			t.Errorf("series %s ends at %v in a %v chart, want at the right edge", rateSeries[si].name, last, size)
		}
	}
	// accepted at the top of the scale, rejected on the bottom line
	if a, rj := r.lines[0][0].Position1.Y, r.lines[2][0].Position1.Y; a > 1 || rj < size.Height-r.left.MinSize().Height-1 {
		t.Errorf("accepted at y=%v, rejected at y=%v", a, rj)
	}
}

func TestRateChartStartsAnewAfterAnEngineRestart(t *testing.T) {
	g, _ := newTestGUI(t, tabActivity)
	g.rates = rateHistory{}
	end := feed(g, fixtureNow, 60, fixture(), 10, 0, 0)
	feed(g, end.Add(time.Second), 30, status.Snapshot{}, 4, 0, 1) // counters from zero again
	for _, p := range g.rates.points() {
		if p.accepted != 4 || p.rejected != 1 {
			t.Fatalf("point %+v spans the restart", p)
		}
	}
}
