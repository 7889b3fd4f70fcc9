package main

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
)

// extensionEvents are what an AttentionX export holds: trust statements,
// a rating, an identity claim, and a kind this server does not keep.
func extensionEvents(seed int) []*nostr.Event {
	a, b := fixture.NewAuthor(seed), fixture.NewAuthor(seed+1)
	return []*nostr.Event{
		a.Trust(fixture.P(b.Pubkey), "1", 1700000000),
		a.Trust(fixture.XUser("77"), "-1", 1700000001, fixture.Scopes("x.com")),
		a.Rating(fixture.XUser("77"), "40", 1700000002),
		b.Claims("someone", "77", 1700000003),
		a.Sign(&nostr.Event{Kind: 1, CreatedAt: 1700000004, Content: "a note", Tags: nostr.Tags{}}),
	}
}

// writeExportZip writes the extension's export as a zip: manifest.json and
// events.json in a folder, beside its other files.
func writeExportZip(t *testing.T, path string, manifest map[string]any, evs []*nostr.Event) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, v := range map[string]any{
		"attentionx-export/manifest.json":     manifest,
		"attentionx-export/events.json":       evs,
		"attentionx-export/x-identities.json": []any{},
		"attentionx-export/settings.json":     map[string]any{"relays": []string{"wss://relay.example"}},
	} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(v, "", "  ")
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, _ := json.MarshalIndent(v, "", "  ")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Issue 29 item 2: `import` takes the AttentionX extension's export
// (attentionx-export version 1): events.json as an array, the export as one
// object with "events", and its zip, through a running server's WebSocket
// and offline alike, saying what was stored, duplicated and refused by rule.
func TestImportTheExtensionsExport(t *testing.T) {
	dir := t.TempDir()
	arrayFile := filepath.Join(dir, "events.json")
	writeJSONFile(t, arrayFile, extensionEvents(10))
	objectFile := filepath.Join(dir, "attentionx-export.json")
	writeJSONFile(t, objectFile, map[string]any{
		"exportedAt": 1700000100000, "events": extensionEvents(20), "xIdentities": []any{}, "xPosts": []any{},
		"skippedDemo": 0, "settings": map[string]any{"relays": []string{}},
	})
	zipFile := filepath.Join(dir, "attentionx-export.zip")
	writeExportZip(t, zipFile, map[string]any{"format": "attentionx-export", "version": 1, "exportedAt": 1700000100000,
		"counts": map[string]int{"events": 5}}, extensionEvents(30))
	newer := filepath.Join(dir, "newer.zip")
	writeExportZip(t, newer, map[string]any{"format": "attentionx-export", "version": 2}, extensionEvents(40))

	const refused = "refused: 1 × blocked: kind N is not kept by this server\n"
	offline := t.TempDir()
	for _, step := range []struct {
		file, out string
	}{
		{objectFile, "4 stored, 0 duplicates, 1 rejected of 5 events (attentionx-export object)\n" + refused},
		{zipFile, "4 stored, 0 duplicates, 1 rejected of 5 events (attentionx-export zip)\n" + refused},
		{zipFile, "0 stored, 4 duplicates, 1 rejected of 5 events (attentionx-export zip)\n" + refused},
	} {
		if out, err := cliRun(t, offline, "import", step.file); err != nil || out != step.out {
			t.Fatalf("offline import %s: %q (%v), want %q", filepath.Base(step.file), out, err, step.out)
		}
	}
	if _, err := cliRun(t, offline, "import", newer); err == nil || !strings.Contains(err.Error(), "attentionx-export version 2: this program reads version 1") {
		t.Fatalf("import of a version 2 export: %v", err)
	}

	// through a running server's WebSocket: the same pipeline
	data := t.TempDir()
	s := startServer(t, data)
	for _, step := range []struct {
		file, out string
	}{
		{arrayFile, "4 stored, 0 duplicates, 1 rejected of 5 events (attentionx-export events.json)\n" + refused},
		{objectFile, "4 stored, 0 duplicates, 1 rejected of 5 events (attentionx-export object)\n" + refused},
		{arrayFile, "0 stored, 4 duplicates, 1 rejected of 5 events (attentionx-export events.json)\n" + refused},
	} {
		if out, err := cliRun(t, data, "import", step.file); err != nil || out != step.out {
			t.Fatalf("import %s into a running server: %q (%v), want %q\n%s", filepath.Base(step.file), out, err, step.out, s.log())
		}
	}
	for _, ev := range append(extensionEvents(10)[:4], extensionEvents(20)[:4]...) {
		if !holds(t, s.addr, ev.ID) {
			t.Fatalf("the running server does not hold %s (kind %d)", ev.ID, ev.Kind)
		}
	}
}
