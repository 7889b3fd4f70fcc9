// Package autostart turns "start at login" on and off the way the desktop
// expects: a desktop entry in the XDG autostart directory (Linux, BSD), a
// value under the user's Run key (Windows, where the installer writes the
// same value), a launch agent (macOS). It has no GUI dependency so the
// engine or the CLI can use it too.
package autostart
