package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	waitFor(t, 10*time.Second, "the window to be hidden", func() bool { return !windowViewable(display, title) })

	second := exec.CommandContext(ctx, binary, "--data", dataDir)
	second.Env = env
	out, err := second.CombinedOutput()
	if err != nil {
		t.Fatalf("second launch: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "its window is brought up") {
		t.Errorf("second launch printed %q", out)
	}
	waitFor(t, 10*time.Second, "the first app's window to come up again", func() bool { return windowViewable(display, title) })
}

// windowViewable reports whether the window with the title is mapped and viewable.
func windowViewable(display, title string) bool {
	info := exec.Command("xwininfo", "-name", title)
	info.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := info.Output()
	return err == nil && strings.Contains(string(out), "Map State: IsViewable")
}
