package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine"
	api "dtp-personal/engine/server"
	"dtp-personal/engine/settings"
)

// cmdPrune runs `prune [--days N] [--dry-run] [--json]`: the trust events
// of people outside the network for more than N days go; and `prune --auto
// N`, which sets automatic pruning (0: off).
func cmdPrune(c *cli) error {
	days := c.fs.Int("days", -1, "days outside the network before a person's events go (default: the automatic setting, else 30)")
	auto := c.fs.Int("auto", -1, "set automatic pruning after this many days (0: off) and do nothing else")
	dryRun := c.fs.Bool("dry-run", false, "say what would be removed, remove nothing")
	asJSON := c.fs.Bool("json", false, "print JSON")
	if err := c.parse(0); err != nil {
		return err
	}
	if *auto >= 0 {
		s, err := modifySettings(c, settings.SetPruneAfterDays(*auto))
		if err != nil {
			return err
		}
		if s.PruneAfterDays == 0 {
			fmt.Println("automatic pruning: off")
		} else {
			fmt.Printf("automatic pruning: a running server removes the events of people outside your network for more than %d days\n", s.PruneAfterDays)
		}
		return nil
	}
	if *days < 0 {
		st, s, err := openSettings(c)
		if err != nil {
			return err
		}
		st.Close()
		*days = engine.DefaultPruneDays
		if s.PruneAfterDays > 0 {
			*days = s.PruneAfterDays
		}
	}
	var r engine.RemovalReport
	err := withEngine(c,
		func(run engine.Running) error {
			return postOwner(run, "/api/v1/prune", api.MaintenanceRequest{Days: *days, DryRun: *dryRun}, &r)
		},
		func(eng *engine.Engine) (err error) {
			r, err = eng.Prune(context.Background(), *days, *dryRun)
			return err
		})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(r)
	}
	verb := "removed"
	if r.DryRun {
		verb = "would remove"
	}
	fmt.Printf("%s %s (%s) of %s outside your network for more than %s\n", verb, count(r.Removed, "event"),
		sizeText(r.Bytes), count(r.Authors, "person"), count(r.Days, "day"))
	if r.Waiting > 0 {
		fmt.Printf("%s outside for less: their events stay until then\n", count(r.Waiting, "more person"))
	}
	printKept(r)
	printFile(r)
	return nil
}

// cmdDelete runs `delete --filter JSON [--dry-run] [--json]`: the stored
// events a NIP-01 filter matches go (strfry's delete --filter), but never
// the roots' own, those answers from the roots use, or those of followed
// repositories.
func cmdDelete(c *cli) error {
	filterText := c.fs.String("filter", "", `NIP-01 filter of the events to delete, e.g. '{"kinds":[32014],"authors":["<hex>"]}'`)
	dryRun := c.fs.Bool("dry-run", false, "say what would be deleted, delete nothing")
	asJSON := c.fs.Bool("json", false, "print JSON")
	if err := c.parse(0); err != nil {
		return err
	}
	if *filterText == "" {
		return fmt.Errorf("%w: delete needs --filter JSON (a NIP-01 filter)", errUsage)
	}
	var f nostr.Filter
	dec := json.NewDecoder(strings.NewReader(*filterText))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return fmt.Errorf("%w: --filter is not a NIP-01 filter: %v", errUsage, err)
	}
	var r engine.RemovalReport
	err := withEngine(c,
		func(run engine.Running) error {
			return postOwner(run, "/api/v1/delete", api.MaintenanceRequest{Filter: &f, DryRun: *dryRun}, &r)
		},
		func(eng *engine.Engine) (err error) {
			r, err = eng.DeleteMatching(context.Background(), f, *dryRun)
			return err
		})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(r)
	}
	verb := "deleted"
	if r.DryRun {
		verb = "would delete"
	}
	fmt.Printf("%s %s (%s) of %d matching\n", verb, count(r.Removed, "event"), sizeText(r.Bytes), r.Matched)
	printKept(r)
	printFile(r)
	return nil
}

// compactDB runs `db compact`: the database file rewritten, every free
// page given back, and a file made before incremental auto-vacuum switched
// to it.
func compactDB(c *cli) error {
	var r engine.RemovalReport
	err := withEngine(c,
		func(run engine.Running) error { return postOwner(run, "/api/v1/compact", api.MaintenanceRequest{}, &r) },
		func(eng *engine.Engine) (err error) {
			r, err = eng.Compact(context.Background())
			return err
		})
	if err != nil {
		return err
	}
	fmt.Printf("database file %s → %s, auto-vacuum %s\n", sizeText(r.FileBefore), sizeText(r.FileAfter), r.VacuumMode)
	return nil
}

// printKept says which matched events stayed, and why.
func printKept(r engine.RemovalReport) {
	var parts []string
	for _, k := range []struct {
		n    int
		what string
	}{
		{r.Kept.Roots, "your roots' own"},
		{r.Kept.Answers, "by people answers from your roots use"},
		{r.Kept.Repositories, "of repositories this server follows"},
	} {
		if k.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", k.n, k.what))
		}
	}
	if len(parts) > 0 {
		fmt.Printf("kept: %s\n", strings.Join(parts, ", "))
	}
}

// printFile says what happened to the database file.
func printFile(r engine.RemovalReport) {
	switch {
	case r.DryRun || r.Removed == 0:
		fmt.Printf("database file %s\n", sizeText(r.FileBefore))
	case r.VacuumMode == "incremental":
		fmt.Printf("database file %s → %s (%s given back to the disk)\n", sizeText(r.FileBefore), sizeText(r.FileAfter),
			count(int(r.PagesReleased), "free page"))
	default:
		fmt.Printf("database file %s: it keeps the freed room for new events; `dtp-personal db compact` gives it back "+
			"to the disk (it rewrites the file once: about 30 s per GB, writes wait meanwhile, and it needs as much free disk as the file)\n",
			sizeText(r.FileBefore))
	}
}

// postOwner posts body to a running server as the data directory's owner
// and decodes its answer into out.
func postOwner(r engine.Running, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, r.Base()+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+r.Token)
	// a prune of a large store takes a while; the server ends it if we go
	resp, err := (&http.Client{Timeout: time.Hour}).Do(req)
	if err != nil {
		return err
	}
	return readAnswer(resp, out)
}

// count says n things, with the plural where n is not 1 ("person" becomes
// "people").
func count(n int, thing string) string {
	switch {
	case n == 1:
		return "1 " + thing
	case strings.HasSuffix(thing, "person"):
		return fmt.Sprintf("%d %speople", n, strings.TrimSuffix(thing, "person"))
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// sizeText says a byte count in kB below a megabyte, else in MB.
func sizeText(n int64) string {
	if n < 1e6 {
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
