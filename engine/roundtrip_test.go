package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/importer"
	"dtp-personal/engine/ingest"
	"dtp-personal/engine/reposync"
	"dtp-personal/engine/settings"
)

// roundTripEvents are trust events and a repository's events that depend on
// each other: an announcement listing wss://our.example, a maintainer's own
// announcement (kept for the owner's), a state, an issue on the repository,
// a comment on the issue, a reply to the comment and a status of the issue.
func roundTripEvents() []*nostr.Event {
	root, alice := fixture.NewAuthor(61), fixture.NewAuthor(62)
	owner, dev := fixture.NewAuthor(63), fixture.NewAuthor(64)
	now := time.Now().Unix()
	ref := fixture.RepoRef(owner.Pubkey, "tool")
	issue := dev.Root(reposync.KindIssue, "crash on start", now-90, ref)
	comment := owner.Tagging(1111, "E", now-80, issue.ID)
	return []*nostr.Event{
		root.Trust(fixture.P(alice.Pubkey), "1", t0),
		alice.Rating(fixture.XUser("5"), "4", t0),
		alice.Claims("alice", "5", t0),
		owner.Announce("tool", []string{"wss://our.example"}, []string{dev.Pubkey}, now-100),
		dev.Announce("tool", []string{"wss://dev.example"}, nil, now-99),
		owner.RepoState("tool", now-95),
		issue,
		comment,
		dev.Sign(&nostr.Event{Kind: 1111, CreatedAt: nostr.Timestamp(now - 70), Content: "thanks",
			Tags: nostr.Tags{{"E", issue.ID}, {"e", comment.ID}}}),
		owner.Tagging(1630, "e", now-60, issue.ID),
	}
}

// reversedLines is a JSONL export turned upside down: every event comes
// before the events it depends on (storage order is arrival order).
func reversedLines(t *testing.T, export []byte) []byte {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(export), "\n"), "\n")
	slices.Reverse(lines)
	return []byte(strings.Join(lines, "\n") + "\n")
}

// lineOf is the line of file that holds event id, or -1.
func lineOf(file []byte, id string) int {
	for i, line := range strings.Split(string(file), "\n") {
		if strings.Contains(line, `"id":"`+id+`"`) {
			return i
		}
	}
	return -1
}

// An export without --kinds holds every stored event, trust and repository
// kinds; imported into a fresh data directory in an order where each event
// comes before what it depends on (a comment before its issue, the issue
// before its announcement), every one is kept again.
func TestExportImportRoundTripKeepsEveryEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src, url := startEngine(t, Options{})
	if err := src.Modify(settings.AddRepoService("wss://our.example")); err != nil {
		t.Fatal(err)
	}
	evs := roundTripEvents()
	c := dialRaw(t, url)
	for _, ev := range evs { // one at a time, in dependency order
		if ok, msg := c.push(ev); !ok {
			t.Fatalf("source refused kind %d: %s", ev.Kind, msg)
		}
	}

	var out bytes.Buffer
	n, err := ExportEvents(ctx, src.store, &out, nil)
	if err != nil || n != len(evs) {
		t.Fatalf("export wrote %d events (%v), want all %d:\n%s", n, err, len(evs), out.String())
	}
	var trust bytes.Buffer
	if n, err := ExportEvents(ctx, src.store, &trust, []int{32009, 10011}); err != nil || n != 2 {
		t.Fatalf("export of kinds 32009 and 10011 wrote %d events (%v), want 2", n, err)
	}

	file := reversedLines(t, out.Bytes())
	ann, issue, comment := evs[3], evs[6], evs[7]
	if !(lineOf(file, comment.ID) < lineOf(file, issue.ID) && lineOf(file, issue.ID) < lineOf(file, ann.ID)) {
		t.Fatalf("the file does not hold the comment before its issue before the announcement:\n%s", file)
	}

	// one import algorithm over its two transports: this process's pipeline
	// and a running server's WebSocket (the CLI's import beside a server)
	for _, transport := range []string{"pipeline", "websocket"} {
		t.Run(transport, func(t *testing.T) {
			dst, dstURL := startEngine(t, Options{})
			if err := dst.Modify(settings.AddRepoService("wss://our.example/")); err != nil {
				t.Fatal(err)
			}
			tally, err := importOver(t, transport, dst, dstURL, file)
			if err != nil {
				t.Fatal(err)
			}
			want := ingest.Tally{Lines: len(evs), Stored: len(evs), Format: importer.FormatJSONL}
			if fmt.Sprint(tally) != fmt.Sprint(want) {
				t.Fatalf("import tally %+v, want %+v", tally, want)
			}
			for _, ev := range evs {
				if has, err := dst.store.Has(ev.ID); err != nil || !has {
					t.Errorf("kind %d not kept by the import (%v)", ev.Kind, err)
				}
			}
			var again bytes.Buffer
			if n, err := ExportEvents(ctx, dst.store, &again, nil); err != nil || n != len(evs) {
				t.Fatalf("export after the import wrote %d events (%v), want %d", n, err, len(evs))
			}

			// a second import of the same file: all held, nothing tried twice
			tally, err = importOver(t, transport, dst, dstURL, file)
			want = ingest.Tally{Lines: len(evs), Duplicates: len(evs), Format: importer.FormatJSONL}
			if err != nil || fmt.Sprint(tally) != fmt.Sprint(want) {
				t.Fatalf("second import tally %+v (%v), want %+v", tally, err, want)
			}
		})
	}
}

// importOver imports file into eng through the pipeline or over the
// WebSocket it serves at url.
func importOver(t *testing.T, transport string, eng *Engine, url string, file []byte) (ingest.Tally, error) {
	t.Helper()
	ctx := context.Background()
	if transport == "pipeline" {
		return eng.Import(ctx, bytes.NewReader(file), nil)
	}
	ws, err := importer.DialWebSocket(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	return importer.Run(ctx, bytes.NewReader(file), ws, nil)
}

// What depends on an event the file does not hold is still refused, once,
// with its rule, after the rounds stop storing anything.
func TestImportCountsWhatStillWaitsAsRejected(t *testing.T) {
	t.Parallel()
	eng, _ := startEngine(t, Options{})
	if err := eng.Modify(settings.AddRepoService("wss://our.example")); err != nil {
		t.Fatal(err)
	}
	evs := roundTripEvents()
	ann, issue, comment := evs[3], evs[6], evs[7]
	orphan := fixture.NewAuthor(65).Tagging(1111, "E", time.Now().Unix(), strings.Repeat("ab", 32))
	var file bytes.Buffer
	for _, ev := range []*nostr.Event{comment, orphan, issue, ann} {
		b, _ := json.Marshal(ev)
		file.Write(append(b, '\n'))
	}
	tally, err := eng.Import(context.Background(), &file, nil)
	msg := "blocked: " + reposync.RuleNotAboutRepo
	if err != nil || tally.Lines != 4 || tally.Stored != 3 || tally.Rejected != 1 || !slices.Equal(tally.FirstErrors, []string{msg}) {
		t.Fatalf("import tally %+v (%v), want 3 stored and the orphan comment refused with %q", tally, err, msg)
	}
}
