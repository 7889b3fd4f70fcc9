package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/importer"
	"dtp-personal/engine/ingest"
	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// dataCard is the Settings tab's "Your data": where the data directory is
// and how big, backup, export and import (as the CLI's commands do), and an
// About line.
type dataCard struct {
	g      *GUI
	root   fyne.CanvasObject
	where  *widget.Label
	result *widget.Label // what the last backup, export or import did
	about  *widget.Label
	err    *inlineError
	busy   []*widget.Button
}

func newDataCard(g *GUI) *dataCard {
	c := &dataCard{g: g, where: widget.NewLabel(""), result: widget.NewLabel(""), err: newInlineError()}
	c.where.Wrapping, c.result.Wrapping = fyne.TextWrapWord, fyne.TextWrapWord
	backup := widget.NewButton("Back up…", func() { c.askSave("dtp-backup.db", c.backupTo) })
	export := widget.NewButton("Export events…", func() { c.askSave("dtp-events.jsonl", c.exportTo) })
	importButton := widget.NewButton("Import events…", c.askOpen)
	c.busy = []*widget.Button{backup, export, importButton}
	c.about = widget.NewLabel("")
	c.about.Wrapping = fyne.TextWrapWord
	c.root = widget.NewCard("Your data", "", container.NewVBox(
		c.where,
		container.NewHBox(backup, export, importButton),
		widget.NewLabel("A backup is a copy of the database to restore (see the README); an export is every "+
			"event as JSON lines, which an import here or elsewhere takes in, as it takes the AttentionX extension's export."),
		c.result, c.err.label, c.about,
	))
	return c
}

func (c *dataCard) render(status.Snapshot) {
	dir := c.g.eng.DataDir()
	setText(c.where, fmt.Sprintf("Data directory: %s (%s)", dir, byteSize(dirSize(dir))))
	setText(c.about, fmt.Sprintf("DTP Personal Server %s keeps a verified copy of the web of trust that "+
		"matters to you and answers trust questions from it. It never publishes anywhere.", c.g.version))
}

// dirSize is the bytes of the files directly in dir (the database, its
// log, the names cache).
func dirSize(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
	}
	return n
}

// byteSize says a size in the unit that reads best: "12.3 MB".
func byteSize(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}

func (c *dataCard) askSave(name string, to func(string)) {
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		path := w.URI().Path()
		w.Close()
		to(path)
	}, c.g.win)
	d.SetFileName(name)
	d.Show()
}

func (c *dataCard) askOpen() {
	dialog.ShowFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		path := r.URI().Path()
		r.Close()
		c.importFrom(path)
	}, c.g.win)
}

// run runs a data command off the UI thread with the buttons disabled,
// then says what it did.
func (c *dataCard) run(what string, command func() (string, error)) {
	for _, b := range c.busy {
		b.Disable()
	}
	c.err.clear()
	setText(c.result, what+"…")
	var done string
	c.g.call(what, func() (err error) {
		done, err = command()
		return err
	}, func(err error) {
		for _, b := range c.busy {
			b.Enable()
		}
		if err != nil {
			setText(c.result, "")
			c.err.set(what + ": " + err.Error())
			return
		}
		setText(c.result, done)
	})
}

func (c *dataCard) backupTo(path string) {
	c.run("Back up", func() (string, error) {
		if err := c.g.eng.Backup(path); err != nil {
			return "", err
		}
		return "Backup written to " + path, nil
	})
}

func (c *dataCard) exportTo(path string) {
	c.run("Export", func() (string, error) {
		// a temporary name until complete: a cut-short export is not mistaken for one
		tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".part")
		f, err := os.Create(tmp)
		if err != nil {
			return "", err
		}
		n, err := c.g.eng.Export(context.Background(), f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp, path)
		}
		if err != nil {
			os.Remove(tmp)
			return "", err
		}
		return fmt.Sprintf("%s exported to %s", words.Plural(n, "event"), path), nil
	})
}

func (c *dataCard) importFrom(path string) {
	c.run("Import", func() (string, error) {
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		t, err := c.g.eng.Import(context.Background(), f, func(ingest.Tally) {})
		if err != nil {
			return "", err
		}
		read := words.Plural(t.Lines, "line")
		if t.Format != importer.FormatJSONL {
			read = words.Plural(t.Lines, "event") + " of the extension's export"
		}
		done := fmt.Sprintf("Imported %s: %s stored, %s already here, %s refused", read,
			words.Count(t.Stored), words.Count(t.Duplicates), words.Count(t.Rejected))
		for i, r := range t.Rules() {
			if i == 3 {
				break
			}
			done += fmt.Sprintf("; %s: %s", words.Count(r.Count), r.Rule)
		}
		return done, nil
	})
}
