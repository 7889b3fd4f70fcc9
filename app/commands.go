package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"dtp-personal/engine"
	"dtp-personal/engine/importer"
	"dtp-personal/engine/ingest"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/store"
	"dtp-personal/engine/validation"
	"dtp-personal/internal/owneronly"
	"dtp-personal/ui/names"
	"dtp-personal/ui/words"
)

func cmdServe(c *cli) error {
	c.fs.Bool("headless", true, "run without GUI (the only mode of serve)")
	if err := c.parse(0); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	eng, err := engine.Open(engine.Options{DataDir: c.data(), Listen: *c.listen, Logger: log})
	if err != nil {
		return err
	}
	serveErr := eng.Serve(ctx)
	closeErr := eng.Close()
	if serveErr != nil {
		return serveErr
	}
	if closeErr == nil {
		log.Info("stopped cleanly")
	}
	return closeErr
}

// openStore opens the data directory's database for a settings command. It
// works while a server runs on the same directory: the server notices the
// change through the store's revision within a second.
func openStore(c *cli) (*store.Store, error) {
	if err := owneronly.MkdirAll(c.data()); err != nil {
		return nil, err
	}
	return store.Open(engine.DatabasePath(c.data()))
}

// openSettings opens the data directory's database and reads its settings;
// the caller closes the store.
func openSettings(c *cli) (*store.Store, settings.Settings, error) {
	st, err := openStore(c)
	if err != nil {
		return nil, settings.Settings{}, err
	}
	s, err := settings.Load(st)
	if err != nil {
		st.Close()
		return nil, settings.Settings{}, err
	}
	return st, s, nil
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func cmdRelays(c *cli) error {
	return editList(c, listCommand{
		name: "relays", what: "a URL", normalize: settings.NormalizeRelayURL,
		add: settings.AddRelay, remove: settings.RemoveRelay,
		list:  func(s settings.Settings) []string { return s.Relays },
		empty: "no relays yet: add one with `dtp-personal relays add wss://relay.example.com`",
	})
}

func cmdRoots(c *cli) error {
	return editList(c, listCommand{
		name: "roots", what: "an npub or hex public key", normalize: settings.ParsePubkey,
		add: settings.AddRoot, remove: settings.RemoveRoot,
		list:  func(s settings.Settings) []string { return s.Roots },
		show:  npubOf,
		empty: "no roots yet: add your own public key with `dtp-personal roots add npub1…`",
	})
}

// npubOf shows a hex public key as the npub people recognise.
func npubOf(hex string) string {
	if npub, err := validation.EncodeNpub(hex); err == nil {
		return npub
	}
	return hex
}

// listCommand is a setting that is a list the user adds to and removes from.
type listCommand struct {
	name, what  string
	normalize   func(string) (string, error) // the form the list keeps
	add, remove func(string) func(*settings.Settings) error
	list        func(settings.Settings) []string
	show        func(string) string // how a kept value is printed; nil: as kept
	empty       string              // printed (on stderr) for an empty list: what to do next
}

func (lc listCommand) shown(v string) string {
	if lc.show == nil {
		return v
	}
	return lc.show(v)
}

// holds reports whether the list holds v, comparing normalised forms (as
// the settings' own remove does: a value kept before a rule changed counts).
func (lc listCommand) holds(s settings.Settings, v string) bool {
	return slices.ContainsFunc(lc.list(s), func(x string) bool {
		n, err := lc.normalize(x)
		return x == v || err == nil && n == v
	})
}

// editList runs `NAME add X`, `NAME remove X` or `NAME list [--json]`.
func editList(c *cli, lc listCommand) error {
	asJSON := c.fs.Bool("json", false, "print JSON")
	if err := c.parseAny(); err != nil {
		return err
	}
	return runList(c, lc, c.args, *asJSON)
}

// runList runs a list command's verb, args[0], on the data directory. Adding
// what is there already says so; removing what is not there is an error.
func runList(c *cli, lc listCommand, args []string, asJSON bool) error {
	verb := ""
	if len(args) > 0 {
		verb = args[0]
	}
	switch verb {
	case "add", "remove":
		if len(args) < 2 {
			return fmt.Errorf("%w: %s %s needs %s", errUsage, lc.name, verb, lc.what)
		}
		if len(args) > 2 {
			return fmt.Errorf("%w: %s %s takes one value; %q left over (quote a value that contains spaces)",
				errUsage, lc.name, verb, strings.Join(args[2:], " "))
		}
	case "list", "":
		if len(args) > 1 {
			return fmt.Errorf("%w: %s list takes no argument; %q left over", errUsage, lc.name, strings.Join(args[1:], " "))
		}
	default:
		return fmt.Errorf("%w: %s %s: use add, remove or list", errUsage, lc.name, verb)
	}
	st, s, err := openSettings(c)
	if err != nil {
		return err
	}
	defer st.Close()
	if verb == "list" || verb == "" {
		if asJSON {
			return printJSON(nonNil(lc.list(s)))
		}
		if len(lc.list(s)) == 0 && lc.empty != "" {
			fmt.Fprintln(os.Stderr, lc.empty)
		}
		for _, item := range lc.list(s) {
			fmt.Println(lc.shown(item))
		}
		return nil
	}
	v, err := lc.normalize(args[1])
	if err != nil {
		return err
	}
	switch held := lc.holds(s, v); {
	case verb == "add" && held:
		fmt.Println("already there:", lc.shown(v))
		return nil
	case verb == "remove" && !held:
		return fmt.Errorf("%s is not in %s (see `dtp-personal %s list`)", lc.shown(v), lc.name, lc.name)
	}
	edit, done := lc.add, "added"
	if verb == "remove" {
		edit, done = lc.remove, "removed"
	}
	if err := settings.Modify(st, edit(v)); err != nil {
		return err
	}
	fmt.Println(done, lc.shown(v))
	return nil
}

func cmdStrategy(c *cli) error {
	interval := c.fs.Int("interval", -1, "interval in minutes for frontier-interval: 5, 15, 30, 60 or 0 (manual)")
	if err := c.parse(1); err != nil {
		return err
	}
	s, err := modifySettings(c, func(s *settings.Settings) error {
		if id := c.positional(0); id != "" {
			s.Strategy = id
		}
		if *interval >= 0 {
			s.IntervalMinutes = *interval
		}
		return nil
	})
	if err != nil {
		return err
	}
	if s.Strategy == settings.FrontierInterval {
		every := "manual only"
		if s.IntervalMinutes > 0 {
			every = fmt.Sprintf("every %d minutes", s.IntervalMinutes)
		}
		fmt.Printf("%s (%s)\n", s.Strategy, every)
		return nil
	}
	fmt.Println(s.Strategy)
	return nil
}

func cmdLimits(c *cli) error {
	set := make([]*int, len(settings.LimitFields))
	for i, f := range settings.LimitFields {
		set[i] = c.fs.Int(f.Flag, -1, f.Help+" ("+f.JSON+")")
	}
	presets := make([]string, len(settings.LimitPresets))
	for i, p := range settings.LimitPresets {
		presets[i] = p.Name + ": " + p.Help
	}
	preset := c.fs.String("preset", "", "caps for the size of network followed, the other flags then change what they name ("+strings.Join(presets, "; ")+")")
	asJSON := c.fs.Bool("json", false, "print JSON")
	if err := c.parse(0); err != nil {
		return err
	}
	s, err := modifySettings(c, func(s *settings.Settings) error {
		if *preset != "" {
			p, err := settings.LimitPresetNamed(*preset)
			if err != nil {
				return err
			}
			p.Apply(&s.Limits)
		}
		for i, f := range settings.LimitFields {
			if *set[i] >= 0 {
				*f.Of(&s.Limits) = *set[i]
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(s.Limits)
	}
	for _, f := range settings.LimitFields {
		fmt.Printf("%s %d\n", f.JSON, *f.Of(&s.Limits))
	}
	return nil
}

// modifySettings changes the data directory's settings (flags left unset
// change nothing) and returns them as stored afterwards, for printing.
func modifySettings(c *cli, change func(*settings.Settings) error) (settings.Settings, error) {
	st, err := openStore(c)
	if err != nil {
		return settings.Settings{}, err
	}
	defer st.Close()
	if err := settings.Modify(st, change); err != nil {
		return settings.Settings{}, err
	}
	return settings.Load(st)
}

// withEngine runs fn against the engine of c's data directory: through the
// HTTP API of a running server when there is one, else an engine opened in
// this process for the duration of the call.
func withEngine(c *cli, remote func(engine.Running) error, local func(*engine.Engine) error) error {
	return onEngine(c, engine.Options{}, remote, local)
}

// readEngine is withEngine for commands that only read (status, resolve):
// the engine it opens takes no lock, so it never keeps a server from
// starting on the data directory (SPEC §9).
func readEngine(c *cli, remote func(engine.Running) error, local func(*engine.Engine) error) error {
	return onEngine(c, engine.Options{ReadOnly: true}, remote, local)
}

func onEngine(c *cli, opts engine.Options, remote func(engine.Running) error, local func(*engine.Engine) error) error {
	if r, ok := engine.FindRunning(c.data()); ok {
		// a server that is stopping closes its listener and connections
		// before it gives up the directory: a reader then reads the
		// database itself
		if err := remote(r); err == nil || !opts.ReadOnly || !isTransportError(err) {
			return err
		}
	}
	opts.DataDir, opts.Logger = c.data(), slog.New(slog.NewTextHandler(io.Discard, nil))
	eng, err := engine.Open(opts)
	if errors.Is(err, engine.ErrAlreadyRunning) {
		return fmt.Errorf("an engine holds %s but its address is unknown; try again in a moment", c.data())
	}
	if err != nil {
		return err
	}
	defer eng.Close()
	return local(eng)
}

// isTransportError reports whether an HTTP request failed for its
// connection (refused, closed before the answer) rather than by an answer.
func isTransportError(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue)
}

func getJSON(u string, v any) error {
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		return err
	}
	return readAnswer(resp, v)
}

// readAnswer decodes a server's JSON answer into v, or returns its
// {"error": …} with the request's URL and status.
func readAnswer(resp *http.Response, v any) error {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return fmt.Errorf("%s: %s %s", resp.Request.URL, resp.Status, e.Error)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

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

func cmdResolve(c *cli) error {
	ctxFlag := c.fs.String("context", "", "context (c) of the question, e.g. identity")
	knobs := []struct {
		flag, param string
		v           *int
	}{
		{"max-degree", "maxDegree", c.fs.Int("max-degree", 0, "max degree for this question (1-5; default: limits --max-depth)")},
		{"follow-threshold", "followThreshold", c.fs.Int("follow-threshold", 0, "follow threshold in % for this question (0-100)")},
		{"red", "red", c.fs.Int("red", 0, "distrusted below this % for this question (0-100)")},
	}
	asJSON := c.fs.Bool("json", false, "print JSON")
	if err := c.parse(1); err != nil {
		return err
	}
	subject := c.positional(0)
	if subject == "" {
		return fmt.Errorf("%w: resolve needs a SUBJECT (npub, hex pubkey, user:id:N, post:id:N or event id)", errUsage)
	}
	q := engine.Query{Subject: subject, Context: *ctxFlag}
	params := url.Values{"subject": {subject}, "context": {*ctxFlag}}
	set := map[string]bool{}
	c.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	overrides := []**int{&q.MaxDegree, &q.FollowThreshold, &q.Red}
	for i, k := range knobs {
		if set[k.flag] {
			params.Set(k.param, strconv.Itoa(*k.v))
			*overrides[i] = k.v
		}
	}
	var ans engine.Answer
	err := readEngine(c,
		func(r engine.Running) error {
			return getJSON(r.Base()+"/api/v1/resolve?"+params.Encode(), &ans)
		},
		func(eng *engine.Engine) (err error) {
			ans, err = eng.Resolve(context.Background(), q)
			return err
		})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(ans)
	}
	// every path starts at a root: "you"
	people, roots := []string{ans.Subject}, []string{}
	for _, ev := range ans.Evidence {
		people = append(people, ev.Author)
	}
	for _, p := range ans.Paths {
		people = append(people, p...)
		roots = append(roots, p[0])
	}
	printAnswer(os.Stdout, ans, words.NamerOf(roots, knownNames(c, people)))
	return nil
}

// knownNames are the display names the window's cache holds for the
// people; none when it has never run.
func knownNames(c *cli, people []string) map[string]string {
	path := filepath.Join(c.data(), names.FileName)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	cache, err := names.Open(path, 0)
	if err != nil {
		return nil
	}
	defer cache.Close()
	known, _ := cache.Names(people)
	return known
}

func cmdImport(c *cli) error {
	if err := c.parse(1); err != nil {
		return err
	}
	path := c.positional(0)
	if path == "" {
		return fmt.Errorf("%w: import needs a FILE: JSONL, the extension's attentionx-export (zip or events.json), or - for standard input", errUsage)
	}
	in := io.Reader(os.Stdin)
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	progress := func(s ingest.Tally) {
		fmt.Fprintf(os.Stderr, "\rimported %s: %d stored, %d duplicates, %d rejected", importedCount(s), s.Stored, s.Duplicates, s.Rejected)
	}
	var stats ingest.Tally
	err := withEngine(c,
		func(r engine.Running) (err error) {
			stats, err = pushOverWebSocket(r, in, progress)
			return err
		},
		func(eng *engine.Engine) (err error) {
			stats, err = eng.Import(context.Background(), in, progress)
			return err
		})
	fmt.Fprintln(os.Stderr)
	for _, e := range stats.FirstErrors {
		fmt.Fprintln(os.Stderr, "  rejected:", e)
	}
	if err != nil {
		return err
	}
	fmt.Printf("%d stored, %d duplicates, %d rejected of %s\n", stats.Stored, stats.Duplicates, stats.Rejected, importedCount(stats))
	if rules := stats.Rules(); len(rules) > 0 {
		parts := make([]string, len(rules))
		for i, r := range rules {
			parts[i] = fmt.Sprintf("%d × %s", r.Count, r.Rule)
		}
		fmt.Printf("refused: %s\n", strings.Join(parts, "; "))
	}
	return nil
}

// importedCount says how much an import read: lines of JSONL, or the events
// of the extension's export.
func importedCount(t ingest.Tally) string {
	if t.Format == importer.FormatJSONL || t.Format == "" {
		return fmt.Sprintf("%d lines", t.Lines)
	}
	return fmt.Sprintf("%d events (%s)", t.Lines, t.Format)
}

func cmdExport(c *cli) error {
	kindsFlag := c.fs.String("kinds", "", "comma-separated kinds to export (default: every stored event, trust and repository kinds)")
	if err := c.parse(0); err != nil {
		return err
	}
	var kinds []int
	for _, k := range strings.Split(*kindsFlag, ",") {
		if k = strings.TrimSpace(k); k == "" {
			continue
		}
		n, err := strconv.Atoi(k)
		if err != nil {
			return fmt.Errorf("%w: --kinds: %q is not a number", errUsage, k)
		}
		kinds = append(kinds, n)
	}
	st, err := openStore(c)
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := engine.ExportEvents(context.Background(), st, os.Stdout, kinds)
	fmt.Fprintf(os.Stderr, "exported %d events\n", n)
	return err
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
