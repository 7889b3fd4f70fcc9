package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// statusView is the Status tab: strategy, state, coverage, sync times, heap.
type statusView struct {
	g      *GUI
	root   fyne.CanvasObject
	setup  *setupCard
	client *clientCard

	strategy *widget.RadioGroup
	syncNow  *widget.Button
	pause    *widget.Button

	summary                    *widget.Label // the one line a person reads first
	state, coverage, reasons   *widget.Label
	lastSync, nextSync, period *widget.Label
	nodes, edges, heapLimit    *widget.Label
	graphVersion, wal          *widget.Label
	form                       *widget.Form
	nextSyncItem               *widget.FormItem
	diagnostics                *widget.Accordion // the engine's figures, closed until asked for
}

func newStatusView(g *GUI) *statusView {
	v := &statusView{g: g, setup: newSetupCard(g), client: newClientCard(g)}
	labels := make([]string, len(settings.Strategies))
	for i, id := range settings.Strategies {
		labels[i] = settings.StrategyLabel(id)
	}
	v.strategy = widget.NewRadioGroup(labels, v.chooseStrategy)
	v.strategy.Required = true
	v.syncNow = widget.NewButton("Sync now", func() {
		g.call("Sync now", g.eng.SyncNow, nil)
	})
	v.pause = widget.NewButton("Pause sync", v.togglePause)

	for _, l := range []**widget.Label{
		&v.summary, &v.state, &v.coverage, &v.reasons, &v.lastSync, &v.nextSync, &v.period,
		&v.nodes, &v.edges, &v.heapLimit, &v.graphVersion, &v.wal,
	} {
		*l = widget.NewLabel("")
		(*l).Wrapping = fyne.TextWrapWord
	}
	v.summary.TextStyle.Bold = true
	v.nextSyncItem = widget.NewFormItem("Next sync", v.nextSync)
	v.form = widget.NewForm(
		widget.NewFormItem("State", v.state),
		widget.NewFormItem("Coverage", v.coverage),
		widget.NewFormItem("Why partial", v.reasons),
		widget.NewFormItem("Last sync", v.lastSync),
		v.nextSyncItem,
		widget.NewFormItem("Interval", v.period),
	)
	v.diagnostics = widget.NewAccordion(widget.NewAccordionItem("Diagnostics", widget.NewForm(
		widget.NewFormItem("Heap nodes", v.nodes),
		widget.NewFormItem("Heap edges", v.edges),
		widget.NewFormItem("Heap limit", v.heapLimit),
		widget.NewFormItem("Graph version", v.graphVersion),
		widget.NewFormItem("Write-ahead log", v.wal),
	)))
	v.root = container.NewVScroll(container.NewVBox(
		v.summary,
		v.setup.root,
		widget.NewCard("Sync strategy", "", container.NewVBox(
			v.strategy,
			helpText(strategiesHelp()),
			container.NewHBox(v.syncNow, v.pause),
		)),
		v.form,
		v.client.root,
		v.diagnostics,
	))
	return v
}

// helpText is a small, wrapped explanation under a control.
func helpText(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.LowImportance
	l.SizeName = theme.SizeNameCaptionText
	return l
}

func (v *statusView) chooseStrategy(label string) {
	for _, id := range settings.Strategies {
		if settings.StrategyLabel(id) == label && id != v.g.last.Strategy {
			v.g.call("Switch strategy", func() error { return v.g.eng.Modify(settings.SetStrategy(id)) }, func(err error) {
				if err != nil {
					v.g.notice.set("Switch strategy: " + err.Error())
					v.render(v.g.last) // show the engine's strategy again
				}
			})
		}
	}
}

func (v *statusView) togglePause() {
	paused := !v.g.last.Paused
	what := "Pause sync"
	if !paused {
		what = "Resume sync"
	}
	v.g.call(what, func() error { return v.g.eng.Modify(settings.SetPaused(paused)) }, nil)
}

func (v *statusView) render(s status.Snapshot) {
	v.setup.render(s)
	v.client.render(s)
	showSelected(v.strategy, settings.StrategyLabel(s.Strategy))
	if s.Paused {
		setButtonText(v.pause, "Resume sync")
	} else {
		setButtonText(v.pause, "Pause sync")
	}

	c := v.g.clock
	setText(v.summary, summaryLine(s, c))
	state := stateLabel(s, c)
	if v.g.passStored.running {
		state += " · " + plural(int(v.g.passStored.stored), "event") + " stored so far"
	}
	setText(v.state, state)
	setText(v.coverage, s.Coverage.State)
	if len(s.Coverage.Reasons) == 0 {
		setText(v.reasons, "—")
	} else {
		facts := coverageFacts{clock: c, truncation: s.Frontier.Truncation, relays: s.Relays}
		setText(v.reasons, facts.all(s.Coverage.Reasons))
	}
	v.nameNextSync(s.Strategy)
	setText(v.lastSync, c.relative(s.LastSync, "never"))
	setText(v.nextSync, c.relative(s.NextSync, "not scheduled"))
	if s.Strategy == settings.FrontierInterval {
		setText(v.period, intervalLabel(s.IntervalMinutes))
	} else {
		setText(v.period, "— (continuous strategy)")
	}
	setText(v.nodes, count(s.Heap.Nodes)+" of "+count(s.Heap.NodeLimit))
	setText(v.edges, count(s.Heap.Edges)+" of "+count(s.Heap.EdgeLimit))
	if s.Heap.LimitReason == "" {
		setText(v.heapLimit, "not reached")
	} else {
		setText(v.heapLimit, "reached: "+s.Heap.LimitReason)
	}
	setText(v.graphVersion, fmt.Sprint(s.Heap.GraphVersion))
	// the bound in the setting's unit (limits --max-wal-mib)
	setText(v.wal, fmt.Sprintf("%s of at most %d MiB (largest %s), beside a database of %s", byteSize(s.Store.WALBytes),
		s.Store.WALLimitBytes>>20, byteSize(s.Store.WALPeakBytes), byteSize(s.Store.DatabaseBytes)))
}

// nameNextSync names the next-sync row for the strategy: continuous
// strategies sync as events arrive, so their next scheduled pass is the
// daily full refresh.
func (v *statusView) nameNextSync(strategy string) {
	name := "Next sync"
	if strategy != settings.FrontierInterval {
		name = "Next full refresh"
	}
	if v.nextSyncItem.Text != name {
		v.nextSyncItem.Text = name
		v.form.Refresh()
	}
}
