package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dtp-personal/internal/testutil"
)

// A second launch on the same data directory (from the menu: no terminal
// to read) brings the running app's window up and exits 0. The window is
// unmapped first, as a close to the tray leaves it.
func TestSecondLaunchRaisesTheWindow(t *testing.T) {
	requireDesktop(t, "xdotool")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	work := t.TempDir()
	display := startXvfb(ctx, t)
	busAddr := startSessionBus(ctx, t)
	newTrayWatcher(t, busAddr) // with a tray, closing the window only hides it
	dataDir := filepath.Join(work, "data")
	env := desktopEnv(display, busAddr, filepath.Join(work, "home"))

	first := exec.CommandContext(ctx, binary, "--data", dataDir, "--listen", freeAddr(t))
	first.Env = env
	_, stop := startApp(t, first, filepath.Join(work, "app.log"))
	defer stop()
	const title = "DTP Personal Server"
	waitForWindow(t, display, title)

	unmap := exec.Command("xdotool", "search", "--name", title, "windowunmap")
	unmap.Env = append(os.Environ(), "DISPLAY="+display)
	if out, err := unmap.CombinedOutput(); err != nil {
		t.Fatalf("unmap the window: %v %s", err, out)
	}
	testutil.EventuallyWithin(t, 10*time.Second, "the window to be hidden", func() bool { return !windowViewable(display, title) })

	second := exec.CommandContext(ctx, binary, "--data", dataDir)
	second.Env = env
	out, err := second.CombinedOutput()
	if err != nil {
		t.Fatalf("second launch: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "its window is brought up") {
		t.Errorf("second launch printed %q", out)
	}
	testutil.EventuallyWithin(t, 10*time.Second, "the first app's window to come up again", func() bool { return windowViewable(display, title) })
}

// windowViewable reports whether the window with the title is mapped and viewable.
func windowViewable(display, title string) bool {
	info := exec.Command("xwininfo", "-name", title)
	info.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := info.Output()
	return err == nil && strings.Contains(string(out), "Map State: IsViewable")
}

// The mouse wheel over a table that shows all its rows (Settings' roots)
// scrolls the page: the window's picture changes. It was the table's, which
// had nothing to scroll, so the page stood still.
func TestWheelOverATableScrollsTheWindow(t *testing.T) {
	requireDesktop(t, "import", "xdotool")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	work := t.TempDir()
	display := startXvfb(ctx, t)
	busAddr := startSessionBus(ctx, t)
	dataDir := filepath.Join(work, "data")
	seedTrustedSubject(t, dataDir) // one root
	app := exec.CommandContext(ctx, binary, "--data", dataDir, "--listen", freeAddr(t))
	app.Env = desktopEnv(display, busAddr, filepath.Join(work, "home"))
	_, stop := startApp(t, app, filepath.Join(work, "app.log"))
	defer stop()
	const title = "DTP Personal Server"
	waitForWindow(t, display, title)
	xdotool(ctx, t, display, "search", "--sync", "--name", title, "windowfocus", "--sync")
	xdotool(ctx, t, display, "key", "alt+6") // Settings
	time.Sleep(time.Second)
	window := windowID(ctx, t, display)
	// over the roots table's one row, under the Roots card's title, subtitle and add form
	xdotool(ctx, t, display, "mousemove", "--window", window, "300", "218")
	time.Sleep(300 * time.Millisecond)
	before := filepath.Join(work, "before.png")
	windowShot(ctx, t, display, before)
	xdotool(ctx, t, display, "click", "--repeat", "5", "--delay", "100", "5") // wheel down
	time.Sleep(time.Second)
	after := filepath.Join(work, "after.png")
	windowShot(ctx, t, display, after)
	if os.Getenv("DTP_KEEP_SHOTS") != "" {
		t.Logf("kept %s and %s", before, after)
		_ = exec.Command("cp", before, after, os.Getenv("DTP_KEEP_SHOTS")).Run()
	}
	if samePixels(t, before, after) {
		t.Error("the window did not scroll under the wheel over the roots table")
	}
}

// samePixels reports whether two screenshots are the same picture.
func samePixels(t *testing.T, a, b string) bool {
	t.Helper()
	cmd := exec.Command("compare", "-metric", "AE", a, b, "null:")
	out, _ := cmd.CombinedOutput() // exit 1 when they differ
	return strings.TrimSpace(string(out)) == "0"
}
