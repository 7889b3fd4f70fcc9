package ui

import (
	"image/color"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"dtp-personal/engine/status"
)

// feed renders a snapshot a second for secs seconds from start, the
// counters growing by the given rates; it returns the time after the last.
func feed(g *GUI, start time.Time, secs int, base status.Snapshot, accepted, duplicates, rejected int64) time.Time {
	now := start
	for i := range secs {
		now = start.Add(time.Duration(i) * time.Second)
		g.clock.Now = func() time.Time { return now }
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
	// accepted (10/s, the peak) along the top, rejected (0/s) along the
	// bottom, duplicates (2/s) a fifth of the way up; all reaching "now"
	img := r.draw(300, 101)
	for _, want := range []struct {
		series int
		y      int
	}{{0, 0}, {1, 80}, {2, 100}} {
		c := theme.Color(rateSeries[want.series].color)
		for _, x := range []int{5, 150, 299} {
			if !sameColor(img.At(x, want.y), c) {
				t.Errorf("%s: no line at (%d, %d)", rateSeries[want.series].name, x, want.y)
			}
		}
	}
}

func sameColor(a, b color.Color) bool {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2
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
