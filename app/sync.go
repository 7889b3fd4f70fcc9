package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"dtp-personal/engine"
	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// Exit codes of `sync --once` (SPEC §12).
const (
	exitPartial = 3
)

func cmdSync(c *cli) error {
	once := c.fs.Bool("once", false, "run one full frontier pass now and exit")
	if err := c.parse(0); err != nil {
		return err
	}
	if !*once {
		return fmt.Errorf("%w: sync needs --once (continuous sync runs in `serve` or the tray app)", errUsage)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cov, done, err := syncSettled(ctx, c)
	if err != nil {
		return err
	}
	if done {
		return passEnded(cov)
	}
	err = withEngine(c,
		func(r engine.Running) (err error) {
			cov, err = syncRemote(ctx, r.Base())
			return err
		},
		func(eng *engine.Engine) error {
			done := make(chan struct{})
			go reportProgress(done, eng.SyncProgress)
			var err error
			cov, err = eng.SyncOnce(ctx)
			close(done)
			return err
		})
	fmt.Fprintln(os.Stderr)
	if err != nil {
		return err
	}
	return passEnded(cov)
}

// syncSettled makes the pass without the trust graph when no server runs on
// the data directory and the last pass settled (engine.SyncSettled); done
// is false when a whole pass must run.
func syncSettled(ctx context.Context, c *cli) (cov status.Coverage, done bool, err error) {
	if _, running := engine.FindRunning(c.data()); running {
		return cov, false, nil
	}
	cov, done, err = engine.SyncSettled(ctx, engine.Options{DataDir: c.data(), Logger: slog.New(slog.DiscardHandler)})
	if errors.Is(err, engine.ErrAlreadyRunning) {
		return cov, false, nil // a server took the directory meanwhile: withEngine asks it
	}
	return cov, done, err
}

// passEnded prints how a pass ended, and its exit: 0 complete, 3 partial.
func passEnded(cov status.Coverage) error {
	if cov.State == status.StateComplete {
		fmt.Println("complete")
		return nil
	}
	fmt.Printf("partial: %s\n", strings.Join(cov.Reasons, ", "))
	return &exitError{code: exitPartial, err: errors.New("")}
}

// reportProgress prints the running pass's progress on stderr twice a second.
func reportProgress(done <-chan struct{}, progress func() status.Progress) {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			if p := progress(); p.Total > 0 {
				fmt.Fprintf(os.Stderr, "\r%-76s", progressLine(p))
			}
		}
	}
}

// progressLine is a running pass's progress in one line: its family and
// keys done, the events received, their rate, how many were stored (new to
// us) and the time left ("trust 640/1600 · 52310 events, 8120/s, 40100
// stored · about 2 min left").
func progressLine(p status.Progress) string {
	line := fmt.Sprintf("%-9s %d/%d · %d events, %.0f/s, %d stored", p.Pass, p.Done, p.Total, p.Events, p.EventsPerSecond, p.Stored)
	if p.SecondsLeft > 0 {
		line += " · " + words.TimeLeft(p.SecondsLeft)
	}
	return line
}

// syncRemote asks a running server for a pass and follows its progress
// until that pass has finished.
func syncRemote(ctx context.Context, base string) (status.Coverage, error) {
	var before status.Snapshot
	if err := getJSON(base+"/api/v1/status", &before); err != nil {
		return status.Coverage{}, err
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/sync", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return status.Coverage{}, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return status.Coverage{}, fmt.Errorf("the running server refused the sync request: %s", resp.Status)
	}
	for {
		select {
		case <-ctx.Done():
			return status.Coverage{}, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
		var s status.Snapshot
		if err := getJSON(base+"/api/v1/status", &s); err != nil {
			return status.Coverage{}, err
		}
		if len(s.Relays) == 0 && s.State != status.StateRunning {
			// a pass with no relay syncs nothing, and the status does not
			// count it as a sync (LastSync stays)
			return status.NewCoverage(status.ReasonNoRelays), nil
		}
		if s.Progress.Total > 0 {
			fmt.Fprintf(os.Stderr, "\r%-76s", progressLine(s.Progress))
		}
		if s.LastSync > before.LastSync && s.State != status.StateRunning {
			if s.State == status.StateError {
				return s.Coverage, errors.New("the sync pass failed; see the server's log")
			}
			return s.Coverage, nil
		}
	}
}

// printAnswer prints an answer in the window's words: the sentence that
// says who decided, then the figures; people by display name where the
// window's cache knows it, else by short npub.
func printAnswer(w *os.File, a engine.Answer, name words.Namer) {
	fmt.Fprintf(w, "verdict    %s", a.Verdict)
	if a.Degree > 0 {
		d := a.Degrees[0]
		fmt.Fprintf(w, " at degree %d: %d trust, %d distrust, %d neutral", a.Degree, d.Trust, d.Distrust, d.Neutral)
		if a.Percent != nil {
			fmt.Fprintf(w, " (%d%% trust)", *a.Percent)
		}
	}
	fmt.Fprintf(w, "\nwhy        %s\n", words.Verdict(a, name))
	fmt.Fprintf(w, "band       max degree %d, trusted from %d%%, distrusted below %d%%\n", a.Band.MaxDegree, a.Band.FollowThreshold, a.Band.Red)
	fmt.Fprintf(w, "coverage   %s", a.Coverage.State)
	if len(a.Coverage.Reasons) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(a.Coverage.Reasons, ", "))
	}
	if n := a.Coverage.NotYetFetched; n > 0 {
		fmt.Fprintf(w, ": %s", words.Facts{NotYetFetched: n}.Reason(status.ReasonNotYetFetched))
	}
	fmt.Fprintf(w, "\nevidence   %d statements, graphVersion %d, %d µs\n", len(a.Evidence), a.GraphVersion, a.ComputeMicros)
	for _, ev := range a.Evidence {
		ctx := ev.Context
		if ctx == "" {
			ctx = "global"
		}
		counted := ""
		if !ev.Counted {
			counted = ", not counted"
		}
		fmt.Fprintf(w, "  %+d by %s, %s (%s%s) %s\n", ev.Value, name(ev.Author), words.Hops(ev.Depth), ctx, counted, ev.EventID)
	}
	said := words.Spoken(a)
	for _, p := range a.Paths {
		fmt.Fprintf(w, "path       %s\n", words.Path(p, said, a.Subject, name))
	}
	if a.Ratings.Count > 0 {
		fmt.Fprintf(w, "ratings    %d, average %.1f\n", a.Ratings.Count, a.Ratings.Average)
	}
}
