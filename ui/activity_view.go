package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// activityView is the Activity tab: the running pass's progress, what the
// ingest pipeline did with its rates over the last 15 minutes as a chart,
// and the latest rejections with their rules.
type activityView struct {
	root fyne.CanvasObject

	pass       *widget.Label
	progress   *widget.ProgressBar
	accepted   *widget.Label
	rate       *widget.Label
	duplicates *widget.Label
	rejected   *widget.Label
	chart      *rateChart
	chartSteps int // the rateHistory.steps the chart shows
	rejections *textTable
	g          *GUI
}

func newActivityView(g *GUI) *activityView {
	v := &activityView{
		pass:       widget.NewLabel(""),
		progress:   newTextlessBar(), // the line above it says how far
		accepted:   widget.NewLabel(""),
		rate:       widget.NewLabel(""),
		duplicates: widget.NewLabel(""),
		rejected:   widget.NewLabel(""),
		chart:      newRateChart(),
		rejections: newTextTable("Time", "Event", "Source", "Rule").whenEmpty("No rejections: every event received was kept or already here."),
		g:          g,
	}
	ingest := widget.NewForm(
		widget.NewFormItem("Accepted", v.accepted),
		widget.NewFormItem("Accept rate", v.rate),
		widget.NewFormItem("Duplicates", v.duplicates),
		widget.NewFormItem("Rejected", v.rejected),
	)
	top := container.NewVBox(
		widget.NewCard("Sync pass", "", container.NewVBox(v.pass, v.progress)),
		widget.NewCard("Ingest", "", container.NewBorder(nil, nil, ingest, nil,
			container.NewBorder(nil, rateLegend(), nil, nil, v.chart))),
		widget.NewLabelWithStyle("Recent rejections", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
	)
	v.root = container.NewBorder(top, nil, nil, nil, v.rejections.root)
	return v
}

func (v *activityView) render(s status.Snapshot) {
	p := s.Progress
	switch {
	case s.State == status.StateRunning && p.Total > 0:
		setText(v.pass, fmt.Sprintf("%s pass: %s of %s done · %s stored so far%s", p.Pass, words.Count(p.Done),
			words.Plural(p.Total, passKey(p.Pass)), words.Plural(int(p.Stored), "event"), words.Pace(p)))
		setProgress(v.progress, float64(min(p.Done, p.Total)), float64(p.Total))
		v.progress.Show()
	case s.State == status.StateRunning:
		setText(v.pass, "Starting a pass · "+words.Plural(int(p.Stored), "event")+" stored so far")
		v.progress.Hide()
	default:
		setText(v.pass, "No pass running")
		v.progress.Hide() // a bar at 0 would read as a pass that is stuck
	}
	in := s.Ingest
	setText(v.accepted, words.Count(in.Accepted))
	setText(v.rate, fmt.Sprintf("%.1f events/s", in.AcceptedPerSec))
	setText(v.duplicates, words.Count(in.Duplicates))
	setText(v.rejected, words.Count(in.Rejected))
	if v.g.rates.steps != v.chartSteps {
		v.chartSteps = v.g.rates.steps
		v.chart.show(v.g.rates.points())
	}

	rows := make([][]string, len(in.RecentRejections))
	for i, r := range in.RecentRejections {
		id := r.EventID
		if len(id) > 16 {
			id = id[:16] + "…"
		}
		rows[i] = []string{v.g.clock.Stamp(r.At, "—"), id, r.Source, r.Reason}
	}
	v.rejections.setRows(rows)
}
