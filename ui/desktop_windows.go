//go:build windows

package ui

import (
	"log/slog"
	"os"
	"path/filepath"

	"fyne.io/systray"
	"golang.org/x/sys/windows/registry"

	"dtp-personal/assets"
)

// assertTrayIcon shows the multi-size .ico in the tray. Fyne converts the
// tray icon it is given into a one-size .ico of the largest image, which
// Windows then scales down; so the tray's status line, which is set again
// every few seconds (statusReassert), sets this one too, after Fyne's.
func assertTrayIcon() { systray.SetIcon(assets.IconICO) }

// registerNotifications makes AppID known to Windows as the sender of the
// app's notifications, which Fyne shows as toasts under that ID: Windows
// shows no toast from an ID it does not know. The key names the app and its
// icon (dtp-personal.ico beside the program, as the installer and the zip
// have it); the uninstaller removes it.
func registerNotifications() {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, `Software\Classes\AppUserModelId\`+AppID, registry.SET_VALUE)
	if err != nil {
		slog.Warn("register for Windows notifications", "err", err)
		return
	}
	defer k.Close()
	if err := k.SetStringValue("DisplayName", "DTP Personal Server"); err != nil {
		slog.Warn("register for Windows notifications", "err", err)
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	icon := filepath.Join(filepath.Dir(exe), "dtp-personal.ico")
	if _, err := os.Stat(icon); err == nil {
		if err := k.SetStringValue("IconUri", icon); err != nil {
			slog.Warn("register for Windows notifications", "err", err)
		}
	}
}
