package main

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine"
	"dtp-personal/engine/fixture"
	"dtp-personal/engine/store"
	"dtp-personal/internal/testutil"
)

// The Windows build under Wine: packaging/windows/test.sh builds
// dtp-personal.exe, prepares a private Wine prefix and runs these tests
// with DTP_WINE_EXE set. The tests talk to the Windows program from this
// (Linux) process over loopback, as the browser extension would, and read
// what it wrote with the Linux build's own store.

// wineExe is the Windows executable under test; the test skips without one.
func wineExe(t *testing.T) string {
	t.Helper()
	exe := os.Getenv("DTP_WINE_EXE")
	if exe == "" {
		t.Skip("DTP_WINE_EXE is not set: packaging/windows/test.sh runs the Windows build under Wine")
	}
	return exe
}

// wineStopped waits for the prefix's Wine server to end (it lingers a few
// seconds after the last program), ending it when it does not. Wine's
// desktop process lives as long as the server and keeps the display it
// started with, the likely cause of the one CI run where the window test's
// GLFW got "Failed to create helper window" right after the installer test
// (its rerun passed).
func wineStopped(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := exec.CommandContext(ctx, "wineserver", "-w").Run(); err != nil {
		_ = exec.Command("wineserver", "-k").Run()
		_ = exec.Command("wineserver", "-w").Run()
	}
}

// winPath is a Linux path as the Windows program sees it (Wine's drive Z:
// is the root directory).
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// wineRun runs one command of the Windows program and returns its stdout.
func wineRun(t *testing.T, exe string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "wine", append([]string{exe}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// wineDataDir is a data directory whose path has spaces and non-ASCII
// letters in it.
func wineDataDir(t *testing.T) string {
	return filepath.Join(t.TempDir(), "Données de José", "dtp data")
}

// startWineServer starts `serve --headless` under Wine and waits for it to
// answer on loopback.
func startWineServer(t *testing.T, exe, data string) *server {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command("wine", exe, "--data", winPath(data), "serve", "--headless", "--listen", addr)
	s := &server{cmd: cmd, addr: addr, stderr: &strings.Builder{}, mu: &sync.Mutex{}}
	cmd.Stderr = lockedWriter{s.mu, s.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	testutil.EventuallyWithin(t, 90*time.Second, "the Windows server to answer NIP-11 on "+addr, func() bool {
		_, err := nip11(addr)
		return err == nil
	})
	return s
}

// nip11 fetches the relay information document.
func nip11(addr string) (map[string]any, error) {
	req, _ := http.NewRequest("GET", "http://"+addr+"/", nil)
	req.Header.Set("Accept", "application/nostr+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("NIP-11: %s", resp.Status)
	}
	var doc map[string]any
	return doc, json.NewDecoder(resp.Body).Decode(&doc)
}

func TestWindowsVersionUnderWine(t *testing.T) {
	exe := wineExe(t)
	out, err := wineRun(t, exe, "version")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "dtp-personal ") || strings.HasPrefix(out, "dtp-personal devel") {
		t.Fatalf("version printed %q, want the release (set by the Makefile)", out)
	}
	if out, err := wineRun(t, exe, "--help"); err != nil || !strings.Contains(out, "serve --headless") {
		t.Fatalf("--help printed %q, %v", out, err)
	}
}

// The server the extension reaches: NIP-11, a push acknowledged after its
// commit, a REQ, settings and a resolve from the CLI while it runs, an
// online backup; then, stopped, db check and the Linux build reading what
// it stored. The data directory and the backup have spaces and é in their
// paths.
func TestWindowsServerUnderWine(t *testing.T) {
	exe := wineExe(t)
	data := wineDataDir(t)
	s := startWineServer(t, exe, data)

	doc, err := nip11(s.addr)
	if err != nil {
		t.Fatal(err)
	}
	if nips, _ := doc["supported_nips"].([]any); len(nips) == 0 {
		t.Fatalf("NIP-11 document without supported_nips: %v", doc)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+s.addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	author, subject := fixture.NewAuthor(1), fixture.NewAuthor(2)
	ev := author.Trust(fixture.P(subject.Pubkey), "1", time.Now().Unix()-60)
	send := func(msg ...any) {
		b, _ := json.Marshal(msg)
		if err := ws.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
	}
	read := func() []json.RawMessage {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("read from the Windows server: %v\n%s", err, s.log())
		}
		var msg []json.RawMessage
		if err := json.Unmarshal(b, &msg); err != nil || len(msg) == 0 {
			t.Fatalf("not a Nostr message: %s", b)
		}
		return msg
	}
	send("EVENT", ev)
	if ok := read(); string(ok[0]) != `"OK"` || string(ok[1]) != `"`+ev.ID+`"` || string(ok[2]) != "true" {
		t.Fatalf("push answered %s, want OK true for %s", ok, ev.ID)
	}
	send("REQ", "q", nostr.Filter{Kinds: []int{32009}, Authors: []string{author.Pubkey}})
	if got := read(); string(got[0]) != `"EVENT"` || !strings.Contains(string(got[2]), ev.ID) {
		t.Fatalf("REQ answered %s, want the pushed event", got)
	}
	if eose := read(); string(eose[0]) != `"EOSE"` {
		t.Fatalf("REQ answered %s after the event, want EOSE", eose)
	}

	if _, err := wineRun(t, exe, "--data", winPath(data), "roots", "add", author.Pubkey); err != nil {
		t.Fatal(err)
	}
	testutil.EventuallyWithin(t, 60*time.Second, "resolve to say trusted once the root is in", func() bool {
		out, err := wineRun(t, exe, "--data", winPath(data), "resolve", subject.Pubkey, "--json")
		var ans struct{ Verdict string }
		return err == nil && json.Unmarshal([]byte(out), &ans) == nil && ans.Verdict == "trusted"
	})

	backup := filepath.Join(t.TempDir(), "sauvegardes à part", "dtp backup.db")
	if err := os.MkdirAll(filepath.Dir(backup), 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := wineRun(t, exe, "--data", winPath(data), "backup", winPath(backup)); err != nil || !strings.Contains(out, "backup written to") {
		t.Fatalf("backup printed %q, %v", out, err)
	}

	// Stopped as a crash would stop it (a headless server started this way
	// has no console to get Ctrl+C from): the acknowledged push is kept.
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	testutil.EventuallyWithin(t, 30*time.Second, "db check to find the data directory free and intact", func() bool {
		out, err := wineRun(t, exe, "--data", winPath(data), "db", "check")
		return err == nil && strings.TrimSpace(out) == "ok"
	})
	for _, path := range []string{engine.DatabasePath(data), backup} {
		st, err := store.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		has, err := st.Has(ev.ID)
		st.Close()
		if err != nil || !has {
			t.Fatalf("%s lacks the acknowledged event: %v", path, err)
		}
	}
}

// Without --data the data directory is %AppData%\dtp-personal: in Wine's
// prefix, drive_c/users/USER/AppData/Roaming/dtp-personal.
func TestWindowsDataDirectoryIsInAppDataUnderWine(t *testing.T) {
	exe := wineExe(t)
	prefix := os.Getenv("WINEPREFIX")
	if prefix == "" {
		t.Fatal("WINEPREFIX is not set: the tests use a private Wine prefix")
	}
	if _, err := wineRun(t, exe, "relays", "add", "wss://relay.example.com"); err != nil {
		t.Fatal(err)
	}
	found, _ := filepath.Glob(filepath.Join(prefix, "drive_c", "users", "*", "AppData", "Roaming", "dtp-personal", "dtp.db"))
	if len(found) != 1 {
		t.Fatalf("no database under %%AppData%%\\dtp-personal in %s (found %v)", prefix, found)
	}
	if out, err := wineRun(t, exe, "relays", "list"); err != nil || !strings.Contains(out, "wss://relay.example.com") {
		t.Fatalf("relays list printed %q, %v", out, err)
	}
}

// wineReg reads one value with Wine's reg.exe; "" when it is not there.
func wineReg(t *testing.T, key, value string) string {
	t.Helper()
	out, err := exec.Command("wine", "reg", "query", key, "/v", value).Output()
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(out), "\n") {
		if fields := strings.SplitN(strings.TrimSpace(line), "    ", 3); len(fields) == 3 && fields[0] == value {
			return strings.TrimSpace(fields[2])
		}
	}
	return ""
}

// runInstaller runs the installer or uninstaller silently and waits for it
// (an uninstaller copies itself to %TEMP% and returns at once, so the test
// waits for what it removes).
func runInstaller(t *testing.T, exe string, args ...string) {
	t.Helper()
	if out, err := exec.Command("wine", append([]string{exe, "/S"}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("%s /S %v: %v\n%s", filepath.Base(exe), args, err, out)
	}
}

// The installer puts the program in Program Files with a Start-menu entry
// and (unless told not to) the Run value the app's own setting writes; the
// uninstaller removes all of it and keeps the user's data unless asked.
func TestWindowsInstallerUnderWine(t *testing.T) {
	wineExe(t)
	setup := os.Getenv("DTP_WINE_SETUP")
	if setup == "" {
		t.Skip("DTP_WINE_SETUP is not set: packaging/windows/test.sh sets it to the built installer")
	}
	drive := filepath.Join(os.Getenv("WINEPREFIX"), "drive_c")
	installed := filepath.Join(drive, "Program Files", "DTP Personal Server")
	program := filepath.Join(installed, "dtp-personal.exe")
	shortcut := filepath.Join(drive, "ProgramData", "Microsoft", "Windows", "Start Menu", "Programs", "DTP Personal Server.lnk")
	const run = `HKCU\Software\Microsoft\Windows\CurrentVersion\Run`
	const uninstallKey = `HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall\org.dtp.personal`
	const toastKey = `HKCU\Software\Classes\AppUserModelId\org.dtp.personal`
	appData, err := filepath.Glob(filepath.Join(drive, "users", "*", "AppData", "Roaming"))
	if err != nil || len(appData) != 1 {
		t.Fatalf("no single user profile in the prefix: %v %v", appData, err)
	}
	data := filepath.Join(appData[0], "dtp-personal")
	gone := func(what, path string) {
		testutil.EventuallyWithin(t, 60*time.Second, what+" to be removed", func() bool {
			_, err := os.Stat(path)
			return os.IsNotExist(err)
		})
	}

	runInstaller(t, setup)
	for _, path := range []string{program, filepath.Join(installed, "uninstall.exe"), shortcut} {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("installed files: %v", err)
		}
	}
	if got, want := wineReg(t, run, "DTP Personal Server"), `"C:\Program Files\DTP Personal Server\dtp-personal.exe"`; got != want {
		t.Fatalf("Run value = %q, want %q (start at login is ticked by default)", got, want)
	}
	if got := wineReg(t, uninstallKey, "DisplayVersion"); got == "" {
		t.Fatal("no entry in Programs and Features")
	}
	if out, err := wineRun(t, program, "relays", "add", "wss://relay.example.com"); err != nil {
		t.Fatalf("the installed program: %q %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(data, "dtp.db")); err != nil {
		t.Fatalf("the installed program's data directory: %v", err)
	}
	// what the app writes at its first start, for Windows' notifications
	if out, err := exec.Command("wine", "reg", "add", toastKey, "/v", "DisplayName", "/d", "DTP Personal Server", "/f").CombinedOutput(); err != nil {
		t.Fatalf("reg add: %v %s", err, out)
	}

	runInstaller(t, filepath.Join(installed, "uninstall.exe"))
	gone("the installed program", installed)
	if _, err := os.Stat(shortcut); !os.IsNotExist(err) {
		t.Fatalf("Start-menu entry left behind: %v", err)
	}
	for key, value := range map[string]string{run: "DTP Personal Server", uninstallKey: "DisplayVersion", toastKey: "DisplayName"} {
		if got := wineReg(t, key, value); got != "" {
			t.Errorf("%s %s left behind: %q", key, value, got)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "dtp.db")); err != nil {
		t.Fatalf("the uninstaller removed the data though not asked to: %v", err)
	}

	runInstaller(t, setup, "/AUTOSTART=0")
	if got := wineReg(t, run, "DTP Personal Server"); got != "" {
		t.Fatalf("Run value %q written with /AUTOSTART=0", got)
	}
	runInstaller(t, filepath.Join(installed, "uninstall.exe"), "/REMOVEDATA=1")
	gone("the installed program", installed)
	gone("the data directory (asked for)", data)
}

// inkShare is the share of the pixels in rect of the PNG at path that are
// neither near white nor black: text and controls on a painted window, the
// icon in the tray.
func inkShare(t *testing.T, path string, rect image.Rectangle) float64 {
	t.Helper()
	img := readPNG(t, path)
	rect = rect.Intersect(img.Bounds())
	ink := 0
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		for x := rect.Min.X; x < rect.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if lum := (r + g + b) / 3 >> 8; lum > 20 && lum < 200 {
				ink++
			}
		}
	}
	return float64(ink) / float64(max(1, rect.Dx()*rect.Dy()))
}

// windowRect is where xwininfo says the named window is on the display.
func windowRect(t *testing.T, display, name string) image.Rectangle {
	t.Helper()
	cmd := exec.Command("xwininfo", "-name", name)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xwininfo -name %q: %v", name, err)
	}
	var x, y, w, h int
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		fmt.Sscanf(line, "Absolute upper-left X: %d", &x)
		fmt.Sscanf(line, "Absolute upper-left Y: %d", &y)
		fmt.Sscanf(line, "Width: %d", &w)
		fmt.Sscanf(line, "Height: %d", &h)
	}
	return image.Rect(x, y, x+w, y+h)
}

// The desktop app under Wine on a virtual display: the window paints,
// closing it (Alt+F4) leaves the tray icon, a second launch brings the
// window back over the loopback request, and Quit in the tray menu stops
// the app cleanly. The screenshots go to docs/screenshots with
// DTP_SCREENSHOTS=1.
func TestWindowsWindowUnderWine(t *testing.T) {
	exe := wineExe(t)
	for _, tool := range []string{"Xvfb", "xwininfo", "xdotool", "import"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed (bash packaging/setup.sh installs it): %v", tool, err)
		}
	}
	wineStopped(t) // a fresh Wine desktop, on this test's display
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	work, data := t.TempDir(), wineDataDir(t)
	display := startXvfb(ctx, t)
	env := append(os.Environ(), "DISPLAY="+display)
	const title, tray = "DTP Personal Server", "Wine System Tray"
	// One CI run saw GLFW fail to make its helper window under Wine ("Resource
	// type not found") and the app end before any window; the same clone's
	// rerun passed. A start that ends that way is tried once more, on a fresh
	// Wine desktop; any other end, or a second one, fails the test.
	var exited chan error
	var logPath string
	for attempt := 1; ; attempt++ {
		app := exec.CommandContext(ctx, "wine", exe, "--data", winPath(data), "--listen", freeAddr(t))
		app.Env = env
		logPath = filepath.Join(work, fmt.Sprintf("app-%d.log", attempt))
		var stop func()
		exited, stop = startApp(t, app, logPath)
		defer stop()
		if attempt > 1 || !endedWithoutHelperWindow(exited, logPath, func() bool { return windowViewable(display, title) }) {
			break
		}
		t.Logf("start %d: GLFW made no helper window under Wine; starting again", attempt)
		wineStopped(t)
	}
	xdo := func(args ...string) {
		t.Helper()
		cmd := exec.Command("xdotool", args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("xdotool %v: %v %s", args, err, out)
		}
	}

	testutil.EventuallyWithin(t, 90*time.Second, "the window to show", func() bool { return windowViewable(display, title) })
	shot := ""
	testutil.EventuallyWithin(t, 60*time.Second, "the window to paint its Status page", func() bool {
		shot = screenshot(t, display, work, "wine-window.png")
		return inkShare(t, shot, windowRect(t, display, title)) > 0.02
	})

	closeWindow := func() {
		t.Helper()
		xdo("search", "--name", title, "windowfocus", "--sync", "key", "alt+F4")
		testutil.EventuallyWithin(t, 10*time.Second, "the window to close to the tray", func() bool { return !windowViewable(display, title) })
	}
	closeWindow()
	shot = filepath.Join(work, "wine-tray.png") // nothing but the tray: not for docs/
	grab := exec.Command("import", "-window", "root", shot)
	grab.Env = env
	if out, err := grab.CombinedOutput(); err != nil {
		t.Fatalf("screenshot: %v %s", err, out)
	}
	if share := inkShare(t, shot, windowRect(t, display, tray)); share < 0.02 {
		t.Fatalf("no icon in Wine's tray (%.3f of its pixels drawn)", share)
	}

	second := exec.CommandContext(ctx, "wine", exe, "--data", winPath(data))
	second.Env = env
	if out, err := second.CombinedOutput(); err != nil || !strings.Contains(string(out), "its window is brought up") {
		t.Fatalf("second launch: %v %q", err, out)
	}
	testutil.EventuallyWithin(t, 10*time.Second, "the window to come up again", func() bool { return windowViewable(display, title) })

	// With the window closed again (it covers Wine's tray), the tray icon,
	// the first in the tray, opens the menu; its last entry is Quit.
	closeWindow()
	quit := func(shot string) {
		r := windowRect(t, display, tray)
		xdo("mousemove", fmt.Sprint(r.Min.X+r.Dy()/2), fmt.Sprint(r.Min.Y+r.Dy()/2), "click", "3")
		time.Sleep(2 * time.Second)
		screenshot(t, display, work, shot)
		xdo("key", "Up", "Return")
	}
	quit("wine-tray-menu.png")
	// Two CI runs saw no stop after Quit (one even after choosing it twice);
	// their reruns stopped in seconds. The app logs "quitting" when the
	// choice arrives: without it, the click or keys were lost on Wine's
	// tray, and Quit is chosen again (three times in all); with it, the app
	// hangs on its way out, which fails the test at once.
	for attempt := 1; ; attempt++ {
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("the app ended with %v after Quit", err)
			}
		case <-time.After(30 * time.Second):
			log, _ := os.ReadFile(logPath)
			if strings.Contains(string(log), "quitting") {
				t.Fatalf("the app took Quit (choice %d) but did not stop within 30 s", attempt)
			}
			if attempt == 3 {
				t.Fatal("Quit chosen three times in the tray menu never reached the app")
			}
			t.Logf("Quit in the tray menu did not reach the app within 30 s; choosing it again")
			quit(fmt.Sprintf("wine-tray-menu-%d.png", attempt+1))
			continue
		}
		break
	}
	if _, err := os.Stat(filepath.Join(data, "running.json")); !os.IsNotExist(err) {
		t.Fatalf("running.json left behind after Quit: %v", err)
	}
}

// endedWithoutHelperWindow waits, up to 90 s, for shown or for the app to
// end, and reports whether it ended with GLFW's helper window error in its
// log at logPath; the exit is put back for the caller.
func endedWithoutHelperWindow(exited chan error, logPath string, shown func() bool) bool {
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			exited <- err
			log, _ := os.ReadFile(logPath)
			return strings.Contains(string(log), "Failed to create helper window")
		case <-time.After(250 * time.Millisecond):
		}
		if shown() {
			return false
		}
	}
	return false
}
