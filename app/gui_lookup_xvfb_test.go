package main

import (
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr/nip19"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/resolver"
	"dtp-personal/internal/testutil"
)

// seedTrustedSubject gives dataDir a root and a small web of trust in which
// the root trusts alice and alice trusts bob; it returns bob's npub.
func seedTrustedSubject(t *testing.T, dataDir string) string {
	t.Helper()
	root, alice, bob := fixture.NewAuthor(1), fixture.NewAuthor(2), fixture.NewAuthor(3)
	at := time.Now().Unix() - 60
	file := filepath.Join(t.TempDir(), "wot.jsonl")
	lines := root.Trust(fixture.P(alice.Pubkey), "1", at).String() + "\n" +
		alice.Trust(fixture.P(bob.Pubkey), "1", at).String() + "\n"
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"roots", "add", root.Pubkey}, {"import", file}} {
		if _, err := cliRun(t, dataDir, args...); err != nil {
			t.Fatal(err)
		}
	}
	npub, err := nip19.EncodePublicKey(bob.Pubkey)
	if err != nil {
		t.Fatal(err)
	}
	return npub
}

// lookUpOnScreen types npub into the window's Look-up tab (Ctrl+L, the
// npub, Enter) and checks the verdict the engine gives for it is the one
// on screen: its badge colour appears where the screenshot before had none.
func lookUpOnScreen(ctx context.Context, t *testing.T, display, work, dataDir, npub, before string) {
	t.Helper()
	out, err := cliRun(t, dataDir, "resolve", npub, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var ans resolver.Answer
	if err := json.Unmarshal([]byte(out), &ans); err != nil || ans.Verdict != resolver.VerdictTrusted {
		t.Fatalf("engine answers %q for the seeded subject (%v), want trusted", ans.Verdict, err)
	}
	xdotool(ctx, t, display, "search", "--sync", "--name", "DTP Personal Server", "windowfocus", "--sync")
	xdotool(ctx, t, display, "key", "ctrl+l")
	xdotool(ctx, t, display, "type", "--delay", "20", npub)
	xdotool(ctx, t, display, "key", "Return")
	baseline := badgePixels(t, before)
	testutil.EventuallyWithin(t, 20*time.Second, "the "+ans.Verdict+" badge on screen", func() bool {
		return badgePixels(t, screenshot(t, display, work, "desktop-lookup.png")) > baseline+400
	})
}

func xdotool(ctx context.Context, t testing.TB, display string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "xdotool", args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// badgePixels counts the clearly green pixels of a screenshot: the
// trusted badge's ground (Fyne's success colour); nothing else in the
// window is green.
func badgePixels(t *testing.T, path string) int {
	t.Helper()
	img := readPNG(t, path)
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if isGreen(img, x, y) {
				n++
			}
		}
	}
	return n
}

// readPNG decodes the PNG file at path.
func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func isGreen(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	r, g, b = r>>8, g>>8, b>>8
	return g > 120 && r+60 < g && b+60 < g
}
