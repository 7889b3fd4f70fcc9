package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// statusView is the Status tab: strategy, state, coverage, sync times, heap.
type statusView struct {
	g      *GUI
	root   fyne.CanvasObject
	setup  *setupCard
	client *clientCard

	strategy *strategyPicker
	syncNow  *widget.Button
	pause    *widget.Button

	summary                    *widget.Label // the one line a person reads first
	restart                    *widget.Label // settings waiting for the next start; hidden when none
	state, coverage, reasons   *widget.Label
	lastSync, nextSync, period *widget.Label
	nodes, edges, heapLimit    *widget.Label
	graphVersion               *widget.Label
	form                       *widget.Form
	nextSyncItem               *widget.FormItem
	diagnostics                *widget.Accordion // the engine's figures, closed until asked for
}

func newStatusView(g *GUI) *statusView {
	v := &statusView{g: g, setup: newSetupCard(g), client: newClientCard(g)}
	v.strategy = newStrategyPicker(v.chooseStrategy)
	v.syncNow = widget.NewButton("Sync now", func() {
		g.call("Sync now", g.eng.SyncNow, nil)
	})
	v.pause = widget.NewButton("Pause sync", v.togglePause)

	for _, l := range []**widget.Label{
		&v.summary, &v.restart, &v.state, &v.coverage, &v.reasons, &v.lastSync, &v.nextSync, &v.period,
		&v.nodes, &v.edges, &v.heapLimit, &v.graphVersion,
	} {
		*l = widget.NewLabel("")
		(*l).Wrapping = fyne.TextWrapWord
	}
	v.summary.TextStyle.Bold = true
	v.restart.Importance = widget.WarningImportance
	v.restart.Hide()
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
	)))
	v.root = container.NewVScroll(container.NewVBox(
		v.summary,
		v.restart,
		v.setup.root,
		widget.NewCard("Sync strategy", "", container.NewVBox(
			v.strategy.root,
			container.NewHBox(v.syncNow, v.pause),
		)),
		v.form,
		v.client.root,
		v.diagnostics,
	))
	return v
}

// strategyPicker is the strategies as radio choices, each with its
// explanation under it.
type strategyPicker struct {
	root     *fyne.Container
	choices  []*widget.RadioGroup // one choice each, so each has its own help under it
	Selected string               // the chosen strategy's label
	onChosen func(label string)
}

func newStrategyPicker(onChosen func(label string)) *strategyPicker {
	p := &strategyPicker{root: container.NewVBox(), onChosen: onChosen}
	for _, id := range settings.Strategies {
		label := settings.StrategyLabel(id)
		choice := widget.NewRadioGroup([]string{label}, func(picked string) {
			if picked != "" && picked != p.Selected {
				p.show(picked)
				p.onChosen(picked)
			}
		})
		choice.Required = true // a choice is left by picking another
		p.choices = append(p.choices, choice)
		help := helpText(strategyHelp(id))
		p.root.Add(container.NewVBox(choice, container.NewPadded(help)))
	}
	return p
}

// show marks the strategy labelled label as the one chosen, without
// calling onChosen: showing the engine's choice is not a new choice.
func (p *strategyPicker) show(label string) {
	p.Selected = label
	for _, c := range p.choices {
		if c.Options[0] == label {
			showSelected(c, label)
		} else {
			showSelected(c, "")
		}
	}
}

// SetSelected chooses the strategy labelled label, as a click does.
func (p *strategyPicker) SetSelected(label string) {
	for _, c := range p.choices {
		if c.Options[0] == label {
			c.SetSelected(label)
		}
	}
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
	v.strategy.show(settings.StrategyLabel(s.Strategy))
	if s.Paused {
		setButtonText(v.pause, "Resume sync")
	} else {
		setButtonText(v.pause, "Pause sync")
	}

	c := v.g.clock
	facts := words.FactsOf(s, c)
	setText(v.summary, words.Summary(s, c))
	if len(s.RestartNeeded) > 0 {
		setText(v.restart, "Saved: "+status.WaitingForStart(s.RestartNeeded)+".")
		v.restart.Show()
	} else {
		v.restart.Hide()
	}
	state := stateLabel(s, c)
	if s.State == status.StateRunning {
		state += " · " + words.Plural(int(s.Progress.Stored), "event") + " stored so far" + words.Pace(s.Progress)
	}
	setText(v.state, state)
	setText(v.coverage, s.Coverage.State)
	if len(s.Coverage.Reasons) == 0 {
		setText(v.reasons, "—")
	} else {
		setText(v.reasons, facts.Reasons(s.Coverage.Reasons))
	}
	v.nameNextSync(s.Strategy)
	lastSync := "never"
	if s.LastSync != 0 {
		lastSync = c.Relative(s.LastSync, "") + " (" + c.At(s.LastSync) + ")"
	}
	setText(v.lastSync, lastSync)
	setText(v.nextSync, facts.Next())
	if s.Strategy == settings.FrontierInterval {
		setText(v.period, intervalLabel(s.IntervalMinutes))
	} else {
		setText(v.period, "— (continuous strategy)")
	}
	setText(v.nodes, words.Count(s.Heap.Nodes)+" of "+words.Count(s.Heap.NodeLimit))
	setText(v.edges, words.Count(s.Heap.Edges)+" of "+words.Count(s.Heap.EdgeLimit))
	if s.Heap.LimitReason == "" {
		setText(v.heapLimit, "not reached")
	} else {
		setText(v.heapLimit, "reached: "+s.Heap.LimitReason)
	}
	setText(v.graphVersion, fmt.Sprint(s.Heap.GraphVersion))
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
