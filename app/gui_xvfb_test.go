package main

// End-to-end test of the desktop app (the binary TestMain builds) on a
// virtual X display: it checks the tray menu over D-Bus the way a desktop's
// tray host reads it, switches the strategy from the tray and sees the change
// through the CLI, checks the window is on screen, looks a subject up in the
// window by typing, and quits from the tray. It needs Xvfb, dbus-daemon,
// xwininfo, xdotool and ImageMagick's import, so it runs only with
// DTP_GUI_TEST=1:
//
//	DTP_GUI_TEST=1 go test ./app/ -run TestGUIOnXvfb -count=1 -v
//
// With DTP_SCREENSHOTS=1 too, the screenshots go to docs/screenshots/.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"dtp-personal/engine/settings"
	"dtp-personal/internal/testutil"
)

// requireDesktop skips unless DTP_GUI_TEST=1 and fails when a tool the
// real-window tests need (Xvfb, a D-Bus daemon, xwininfo, and extra) is missing.
func requireDesktop(tb testing.TB, extra ...string) {
	tb.Helper()
	if os.Getenv("DTP_GUI_TEST") != "1" {
		tb.Skip("set DTP_GUI_TEST=1 to run the desktop app under Xvfb")
	}
	for _, tool := range append([]string{"Xvfb", "dbus-daemon", "xwininfo"}, extra...) {
		if _, err := exec.LookPath(tool); err != nil {
			tb.Fatalf("%s is needed (bash packaging/setup.sh installs it): %v", tool, err)
		}
	}
}

// desktopEnv is the environment of the app on a test display and session
// bus, with its own home so nothing of the user's desktop is touched.
func desktopEnv(display, busAddr, home string, extra ...string) []string {
	return append(append(os.Environ(),
		"DISPLAY="+display,
		"DBUS_SESSION_BUS_ADDRESS="+busAddr,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"LIBGL_ALWAYS_SOFTWARE=1",
	), extra...)
}

// startApp starts the app with its output in logPath; exited yields its
// Wait result, and stop kills it if it still runs and shows its log when the
// test failed.
func startApp(tb testing.TB, app *exec.Cmd, logPath string) (exited chan error, stop func()) {
	tb.Helper()
	logFile, err := os.Create(logPath)
	if err != nil {
		tb.Fatal(err)
	}
	app.Stdout, app.Stderr = logFile, logFile
	if err := app.Start(); err != nil {
		logFile.Close()
		tb.Fatal(err)
	}
	exited = make(chan error, 1)
	go func() { exited <- app.Wait() }()
	return exited, func() {
		if app.ProcessState == nil {
			_ = app.Process.Kill()
			<-exited
		}
		logFile.Close()
		if tb.Failed() {
			log, _ := os.ReadFile(logPath)
			tb.Logf("app log:\n%s", log)
		}
	}
}

func TestGUIOnXvfb(t *testing.T) {
	requireDesktop(t, "import", "xdotool")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	work := t.TempDir()
	bin := binary // built by TestMain

	display := startXvfb(ctx, t)
	busAddr := startSessionBus(ctx, t)
	watcher := newTrayWatcher(t, busAddr)

	dataDir := filepath.Join(work, "data")
	subject := seedTrustedSubject(t, dataDir)
	home := filepath.Join(work, "home")
	env := desktopEnv(display, busAddr, home)
	app := exec.CommandContext(ctx, bin, "--data", dataDir, "--listen", freeAddr(t))
	app.Env = env
	exited, stop := startApp(t, app, filepath.Join(work, "app.log"))
	defer stop()

	item := watcher.waitForItem(t, 60*time.Second)
	conn := watcher.conn
	sni := conn.Object(item.sender, item.path)

	// The tray title carries the state line (Fyne first sets the app name).
	testutil.EventuallyWithin(t, 15*time.Second, "the state in the tray title", func() bool {
		title, err := sni.GetProperty("org.kde.StatusNotifierItem.Title")
		if err != nil {
			t.Logf("read tray title: %v", err)
			return false
		}
		text, _ := title.Value().(string)
		return strings.HasPrefix(text, "DTP Personal: ")
	})

	menuPath, err := sni.GetProperty("org.kde.StatusNotifierItem.Menu")
	if err != nil {
		t.Fatalf("read tray menu path: %v", err)
	}
	menu := conn.Object(item.sender, menuPath.Value().(dbus.ObjectPath))

	// The three strategies, the active one checked.
	var items map[string]menuItem
	defer func() {
		if t.Failed() {
			t.Logf("last tray menu read: %v", items)
		}
	}()
	testutil.EventuallyWithin(t, 20*time.Second, "a tray menu with the three strategies", func() bool {
		items, err = readMenu(menu)
		if err != nil {
			t.Logf("GetLayout: %v", err)
			return false
		}
		for _, id := range settings.Strategies {
			if _, ok := items[settings.StrategyLabel(id)]; !ok {
				return false
			}
		}
		return items[settings.StrategyLabel(settings.FrontierInterval)].checked
	})
	for _, label := range []string{"Sync now", "Pause sync", "Open window", "Quit", "Interval"} {
		if _, ok := items[label]; !ok {
			t.Errorf("tray menu lacks %q; has %v", label, menuLabels(items))
		}
	}

	waitForWindow(t, display, "DTP Personal Server")
	window := screenshot(t, display, work, "desktop-window.png")
	lookUpOnScreen(ctx, t, display, work, dataDir, subject, window)

	// Switch the strategy from the tray; the engine records it.
	target := items[settings.StrategyLabel(settings.GlobalContinuous)]
	if call := menu.Call("com.canonical.dbusmenu.Event", 0, target.id, "clicked",
		dbus.MakeVariant(""), uint32(time.Now().Unix())); call.Err != nil {
		t.Fatalf("click %q: %v", settings.StrategyLabel(settings.GlobalContinuous), call.Err)
	}
	testutil.EventuallyWithin(t, 20*time.Second, "status --json to report global-continuous", func() bool {
		return cliStrategy(ctx, t, bin, dataDir, env) == settings.GlobalContinuous
	})
	testutil.EventuallyWithin(t, 20*time.Second, "the tray menu to check the new strategy", func() bool {
		items, err = readMenu(menu)
		return err == nil && items[settings.StrategyLabel(settings.GlobalContinuous)].checked &&
			!items[settings.StrategyLabel(settings.FrontierInterval)].checked
	})
	time.Sleep(time.Second) // let the window catch up with the snapshot
	screenshot(t, display, work, "desktop-window-after-switch.png")

	// Quit from the tray stops the whole process.
	if call := menu.Call("com.canonical.dbusmenu.Event", 0, items["Quit"].id, "clicked",
		dbus.MakeVariant(""), uint32(time.Now().Unix())); call.Err != nil {
		t.Fatalf("click Quit: %v", call.Err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("app exited with %v after Quit", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("app still running 30 s after Quit")
	}
}

// startXvfb starts a virtual display on a free display number and returns
// once the display answers a client. One CI run saw the app fail to open the
// display Xvfb had just reported (while another test suite ran Xvfb on the
// same machine): the answer is checked here, so such a display is retried
// rather than blamed on the app.
func startXvfb(ctx context.Context, t testing.TB) string {
	t.Helper()
	var last string
	for attempt := 1; attempt <= 3; attempt++ {
		display, stop, complaint := tryXvfb(ctx)
		if complaint == "" {
			t.Cleanup(stop)
			return display
		}
		last = complaint
		t.Logf("Xvfb attempt %d: %s", attempt, complaint)
	}
	t.Fatalf("no virtual display answered: %s", last)
	return ""
}

// tryXvfb starts one Xvfb and waits for its display to answer xwininfo.
// complaint says why it did not, with what Xvfb printed.
func tryXvfb(ctx context.Context) (display string, stop func(), complaint string) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", nil, err.Error()
	}
	defer r.Close()
	var stderr strings.Builder
	// -displayfd makes Xvfb pick a free display and write its number on fd 3.
	// -noreset: by default the server resets when its last client leaves,
	// which the probe below is, and a client connecting during the reset
	// gets "Failed to open display" (the app did, in two CI runs).
	x := exec.CommandContext(ctx, "Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset")
	x.ExtraFiles = []*os.File{w}
	// SIGTERM lets Xvfb remove its lock file and socket, which a kill leaves
	x.Cancel = func() error { return x.Process.Signal(syscall.SIGTERM) }
	x.WaitDelay = 5 * time.Second
	x.Stderr = &stderr
	if err := x.Start(); err != nil {
		w.Close()
		return "", nil, err.Error()
	}
	w.Close()
	exited := make(chan struct{})
	go func() { _ = x.Wait(); close(exited) }()
	stop = func() {
		_ = x.Cancel()
		select {
		case <-exited:
		case <-time.After(x.WaitDelay):
			_ = x.Process.Kill()
			<-exited
		}
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Sprintf("Xvfb did not report its display: %v; it printed %q", err, stderr.String())
	}
	display = ":" + strings.TrimSpace(line)
	deadline := time.Now().Add(10 * time.Second)
	for {
		probe := exec.Command("xwininfo", "-root")
		probe.Env = append(os.Environ(), "DISPLAY="+display)
		out, err := probe.CombinedOutput()
		if err == nil {
			return display, stop, ""
		}
		select {
		case <-exited:
			return "", nil, fmt.Sprintf("Xvfb on %s ended; it printed %q", display, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, fmt.Sprintf("display %s did not answer within 10s: %v %s", display, err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startSessionBus starts a private D-Bus session bus and returns its address.
func startSessionBus(ctx context.Context, t testing.TB) string {
	t.Helper()
	bus := exec.CommandContext(ctx, "dbus-daemon", "--session", "--nofork", "--print-address=1")
	out, err := bus.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bus.Process.Kill(); _ = bus.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon did not print its address: %v", err)
	}
	return strings.TrimSpace(addr)
}

// trayWatcher is a minimal org.kde.StatusNotifierWatcher: it records the
// items that register, as a desktop's tray host would.
type trayWatcher struct {
	conn  *dbus.Conn
	items chan trayItem
}

type trayItem struct {
	sender string
	path   dbus.ObjectPath
}

func newTrayWatcher(t testing.TB, busAddr string) *trayWatcher {
	t.Helper()
	conn, err := dbus.Connect(busAddr)
	if err != nil {
		t.Fatalf("connect to the session bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	w := &trayWatcher{conn: conn, items: make(chan trayItem, 4)}
	if err := conn.Export(w, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.kde.StatusNotifierWatcher", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.kde.StatusNotifierWatcher: %v (reply %v)", err, reply)
	}
	return w
}

// RegisterStatusNotifierItem is the watcher's D-Bus method. service is an
// object path (the systray library's way) or a bus name.
func (w *trayWatcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	item := trayItem{sender: string(sender), path: "/StatusNotifierItem"}
	if strings.HasPrefix(service, "/") {
		item.path = dbus.ObjectPath(service)
	} else if service != "" {
		item.sender = service
	}
	w.items <- item
	return nil
}

func (w *trayWatcher) waitForItem(t *testing.T, timeout time.Duration) trayItem {
	t.Helper()
	select {
	case item := <-w.items:
		return item
	case <-time.After(timeout):
		t.Fatalf("no tray item registered within %v", timeout)
	}
	return trayItem{}
}

// menuItem is one entry of a com.canonical.dbusmenu layout.
type menuItem struct {
	id      int32
	checked bool
}

// dbusLayout is the (ia{sv}av) layout node of com.canonical.dbusmenu.
type dbusLayout struct {
	ID         int32
	Properties map[string]dbus.Variant
	Children   []dbus.Variant
}

// readMenu reads the whole menu and indexes its items by label.
func readMenu(menu dbus.BusObject) (map[string]menuItem, error) {
	var revision uint32
	var root dbusLayout
	if err := menu.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).
		Store(&revision, &root); err != nil {
		return nil, err
	}
	items := map[string]menuItem{}
	var walk func(dbusLayout)
	walk = func(node dbusLayout) {
		if label, ok := node.Properties["label"].Value().(string); ok {
			state, _ := node.Properties["toggle-state"].Value().(int32)
			items[label] = menuItem{id: node.ID, checked: state == 1}
		}
		for _, child := range node.Children {
			var sub dbusLayout
			if err := dbus.Store([]any{child.Value()}, &sub); err == nil {
				walk(sub)
			}
		}
	}
	walk(root)
	return items, nil
}

func menuLabels(items map[string]menuItem) []string {
	var labels []string
	for l := range items {
		labels = append(labels, l)
	}
	return labels
}

// cliStrategy asks the CLI for the strategy recorded in dataDir.
func cliStrategy(ctx context.Context, t *testing.T, bin, dataDir string, env []string) string {
	cmd := exec.CommandContext(ctx, bin, "--data", dataDir, "status", "--json")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Logf("status --json: %v", err)
		return ""
	}
	var snap struct {
		Strategy string `json:"strategy"`
	}
	if err := json.Unmarshal(out, &snap); err != nil {
		t.Logf("status --json printed %q: %v", out, err)
		return ""
	}
	return snap.Strategy
}

// waitForWindow waits until a window with the given title is mapped.
func waitForWindow(t testing.TB, display, title string) {
	t.Helper()
	testutil.EventuallyWithin(t, 30*time.Second, fmt.Sprintf("a mapped window %q", title), func() bool {
		cmd := exec.Command("xwininfo", "-root", "-tree")
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		out, err := cmd.Output()
		if err != nil || !strings.Contains(string(out), `"`+title+`"`) {
			return false
		}
		info := exec.Command("xwininfo", "-name", title)
		info.Env = cmd.Env
		out, err = info.Output()
		return err == nil && strings.Contains(string(out), "Map State: IsViewable")
	})
}

var screenshotMu sync.Mutex

// screenshot saves the whole display: to docs/screenshots with
// DTP_SCREENSHOTS=1, else next to the test's other files; it returns the
// file's path.
func screenshot(t *testing.T, display, work, name string) string {
	t.Helper()
	screenshotMu.Lock()
	defer screenshotMu.Unlock()
	dir := work
	if os.Getenv("DTP_SCREENSHOTS") == "1" {
		dir = filepath.Join("..", "docs", "screenshots")
	}
	path := filepath.Join(dir, name)
	cmd := exec.Command("import", "-window", "root", path)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("screenshot: %v\n%s", err, out)
	}
	t.Logf("screenshot %s", path)
	return path
}
