package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"dtp-personal/engine"
	"dtp-personal/engine/importer"
	"dtp-personal/engine/ingest"
)

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
