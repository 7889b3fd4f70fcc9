package ui

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"runtime"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/systray"
	"github.com/godbus/dbus/v5"

	"dtp-personal/assets"
)

// AppID is the app's unique id (also in FyneApp.toml).
const AppID = "org.dtp.personal"

// ErrNoDisplay is returned by Run when there is no display to open a window on.
var ErrNoDisplay = errors.New("no display (DISPLAY and WAYLAND_DISPLAY are unset): run `dtp-personal serve --headless` instead")

// RunOptions are what the desktop app adds to the window.
type RunOptions struct {
	// Names names people (nil: short npubs).
	Names Names
	// Raise brings the window up each time it receives: a second launch
	// asks the running app this way.
	Raise <-chan struct{}
	// Version is the program's version, for the About line.
	Version string
	// Ready, if not nil, is called once the window has painted and built
	// all its pages: the desktop app starts syncing then (see
	// engine.Options.SyncAfter).
	Ready func()
}

// Run shows the window and tray for eng and returns when the app stops:
// after the user chooses Quit (quit, if not nil, is called first and should
// stop the engine), when ctx ends (the same happens), or when the desktop
// session ends the app.
func Run(ctx context.Context, eng Engine, opts RunOptions, quit func()) error {
	if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return ErrNoDisplay
	}
	if dir := fyneConfigDir(); dir != "" {
		repairPreferences(dir)
	}
	a := fyneapp.NewWithID(AppID)
	a.SetIcon(fyne.NewStaticResource("dtp-personal.png", assets.IconPNG))
	registerNotifications()
	g := New(a, eng, quit)
	if opts.Names != nil {
		g.SetNames(opts.Names)
	}
	if opts.Version != "" {
		g.version = opts.Version
	}
	g.notifications = notificationService
	if desk, ok := a.(desktop.App); ok {
		g.AttachTray(NewSystemTray(desk))
		desk.SetSystemTrayIcon(fyne.NewStaticResource("dtp-personal-tray.png", assets.TrayPNG))
		if trayWatched() {
			// Closing the window hides it; the tray's "Open window" brings it back.
			desk.SetSystemTrayWindow(g.Window())
			g.Window().SetCloseIntercept(g.hideToTray)
		} else {
			slog.Info("no system tray on this desktop: closing the window quits")
			g.Window().SetCloseIntercept(g.Quit)
		}
	} else {
		g.Window().SetCloseIntercept(g.Quit)
	}
	g.Start()
	defer g.Stop()
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			g.Quit()
		case <-stopped:
		}
	}()
	go func() {
		for {
			select {
			case <-opts.Raise:
				fyne.Do(g.ShowWindow)
			case <-stopped:
				return
			}
		}
	}()
	lagReport := os.Getenv(LagReportEnv)
	var probe *lagProbe
	a.Lifecycle().SetOnStarted(func() {
		g.buildHiddenPages(opts.Ready)
		if lagReport != "" {
			// Probe from the loop's start (OnStarted runs on the UI thread, as
			// does the code after a.Run), so window creation is not counted.
			probe = startLagProbe(fyne.Do, lagProbeInterval)
		}
	})
	g.Window().Show()
	a.Run()
	if probe != nil {
		if err := writeLagReport(probe, lagReport); err != nil {
			slog.Warn("write the UI lag report", "path", lagReport, "err", err)
		}
	}
	return nil
}

// notificationService reports whether a notification service (the
// desktop's org.freedesktop.Notifications) is on the session bus; without
// one a notification is lost.
func notificationService() bool {
	if runtime.GOOS != "linux" && runtime.GOOS != "freebsd" && runtime.GOOS != "openbsd" && runtime.GOOS != "netbsd" {
		return true // macOS and Windows always show them
	}
	return sessionBusHas("org.freedesktop.Notifications")
}

// systemTray is the desktop's tray: Fyne's menu, and the title and tooltip
// of the StatusNotifierItem (which Fyne does not expose).
type systemTray struct{ desk desktop.App }

// NewSystemTray is the TrayHost of a desktop Fyne app.
func NewSystemTray(desk desktop.App) TrayHost { return systemTray{desk: desk} }

func (t systemTray) SetSystemTrayMenu(menu *fyne.Menu) { t.desk.SetSystemTrayMenu(menu) }

func (t systemTray) SetStatus(text string) {
	systray.SetTitle(text)
	systray.SetTooltip(text)
	assertTrayIcon()
}

// trayWatched reports whether a StatusNotifierWatcher (the desktop's tray
// host) is on the session bus; without one the tray icon never shows.
func trayWatched() bool {
	if runtime.GOOS != "linux" && runtime.GOOS != "freebsd" && runtime.GOOS != "openbsd" && runtime.GOOS != "netbsd" {
		return true // macOS and Windows always have a tray
	}
	return sessionBusHas("org.kde.StatusNotifierWatcher")
}

// sessionBusHas reports whether a name has an owner on the session bus.
func sessionBusHas(name string) bool {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return false
	}
	defer conn.Close()
	var owned bool
	err = conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&owned)
	return err == nil && owned
}
