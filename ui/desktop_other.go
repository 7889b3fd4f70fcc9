//go:build !windows

package ui

// assertTrayIcon: elsewhere Fyne's tray icon is shown as given.
func assertTrayIcon() {}

// registerNotifications: elsewhere the desktop needs no registration.
func registerNotifications() {}
