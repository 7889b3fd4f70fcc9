package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"dtp-personal/engine"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

func cmdStatus(c *cli) error {
	asJSON := c.fs.Bool("json", false, "print JSON")
	if err := c.parse(0); err != nil {
		return err
	}
	r, running := engine.FindRunning(c.data())
	snap, err := currentStatus(c)
	if err != nil {
		return err
	}
	if *asJSON {
		out := statusJSON{Running: running, Snapshot: snap}
		if running {
			out.Server = &serverJSON{PID: r.PID, Listen: r.Listen}
		}
		return printJSON(out)
	}
	if running {
		fmt.Printf("server     running on %s (pid %d)\n", r.Listen, r.PID)
	} else {
		fmt.Println("server     not running on this data directory (what follows is what it holds)")
	}
	printStatus(os.Stdout, snap, knownNames(c, snap.Frontier.Roots))
	for _, step := range nextSteps(snap, running) {
		fmt.Println("next:", step)
	}
	return nil
}

// statusJSON is `status --json`: the engine's snapshot and whether a server
// runs on the data directory (its token stays in running.json).
type statusJSON struct {
	Running bool        `json:"running"`
	Server  *serverJSON `json:"server,omitempty"`
	status.Snapshot
}

type serverJSON struct {
	PID    int    `json:"pid"`
	Listen string `json:"listen"`
}

// nextSteps are what a person should do next, most needed first: the
// set-up steps not done yet, from the same facts as the window's
// Get-started card (words.Setup: the snapshot's roots and relay rows, which
// a running server's status carries too), or a server that is not running.
func nextSteps(s status.Snapshot, running bool) []string {
	var steps []string
	setup := words.SetupOf(s, func(string) string { return "" })
	if !setup.Root.Done {
		steps = append(steps, "add your public key as a root: dtp-personal roots add npub1…")
	}
	if !setup.Relays.Done {
		steps = append(steps, "add a relay to sync from: dtp-personal relays add wss://relay.example.com")
	}
	if !running {
		steps = append(steps, "start the server: dtp-personal (window and tray) or dtp-personal serve --headless")
	}
	if running && setup.Root.Done && setup.Relays.Done && !setup.FirstPass.Done && s.State != status.StateRunning {
		steps = append(steps, "sync now: dtp-personal sync --once")
	}
	return steps
}

// currentStatus is the running server's status snapshot, or this process's
// when none runs.
func currentStatus(c *cli) (status.Snapshot, error) {
	var snap status.Snapshot
	err := readEngine(c,
		func(r engine.Running) error { return getJSON(r.Base()+"/api/v1/status", &snap) },
		func(eng *engine.Engine) error { snap = eng.Status(); return nil })
	return snap, err
}

// printStatus prints the status in the window's words (package words):
// the summary line, the set-up, coverage reasons and each relay's trouble
// and retry as the Status and Relays tabs say them; the raw relay errors
// are in --json and the server's log.
func printStatus(w io.Writer, s status.Snapshot, known map[string]string) {
	clock := words.SystemClock()
	facts := words.FactsOf(s, clock)
	fmt.Fprintf(w, "summary    %s\n", words.Summary(s, clock))
	setup := words.SetupOf(s, func(hexKey string) string { return known[hexKey] })
	if !setup.Done() {
		fmt.Fprintf(w, "set-up     %s\n", strings.Join([]string{setup.Root.Tick(), setup.Relays.Tick(), setup.FirstPass.Tick()}, "\n           "))
	}
	fmt.Fprintf(w, "strategy   %s", s.Strategy)
	if s.Strategy == settings.FrontierInterval {
		fmt.Fprintf(w, " (interval %d min)", s.IntervalMinutes)
	}
	fmt.Fprintf(w, "\nstate      %s\n", s.State)
	if len(s.RestartNeeded) > 0 {
		fmt.Fprintf(w, "restart    %s\n", status.WaitingForStart(s.RestartNeeded))
	}
	if s.Progress.Total > 0 {
		fmt.Fprintf(w, "progress   %s\n", progressLine(s.Progress))
	}
	fmt.Fprintf(w, "coverage   %s\n", s.Coverage.State)
	if len(s.Coverage.Reasons) > 0 {
		fmt.Fprintln(w, indent(facts.Reasons(s.Coverage.Reasons)))
	}
	last := "never"
	if s.LastSync != 0 {
		last = clock.Relative(s.LastSync, "") + " (" + clock.At(s.LastSync) + ")"
	}
	fmt.Fprintf(w, "last sync  %s\nnext sync  %s\n", last, facts.Next())
	fmt.Fprintf(w, "heap       %d nodes, %d edges, graphVersion %d", s.Heap.Nodes, s.Heap.Edges, s.Heap.GraphVersion)
	if s.Heap.LimitReason != "" {
		fmt.Fprintf(w, " (%s)", s.Heap.LimitReason)
	}
	fmt.Fprintf(w, "\nfrontier   %d authors from %d roots, by depth %v\n", s.Frontier.Size, len(s.Frontier.Roots), s.Frontier.ByDepth)
	for _, t := range s.Frontier.Truncation {
		fmt.Fprintf(w, "  truncated by %s: %d cut\n", t.Reason, t.Cut)
	}
	fmt.Fprintf(w, "ingest     %d stored, %d duplicates, %d rejected\n", s.Ingest.Accepted, s.Ingest.Duplicates, s.Ingest.Rejected)
	fmt.Fprintf(w, "relays     %d\n", len(s.Relays))
	for _, r := range s.Relays {
		fmt.Fprintf(w, "  %s  %s; health %s; %d events", r.URL, facts.RelayDoing(r), words.Health(r.Health), r.EventsFetched)
		switch r.NIP77 {
		case status.NIP77Used:
			fmt.Fprintf(w, ", refresh by NIP-77 (%d ids, %d bytes)", r.IDsReconciled, r.ReconcileBytes)
		case status.NIP77Unsupported:
			fmt.Fprint(w, ", refresh paged (no NIP-77)")
		}
		fmt.Fprintln(w)
	}
}

// indent is lines indented under a status line's heading.
func indent(lines string) string {
	return "  " + strings.ReplaceAll(lines, "\n", "\n  ")
}
