//go:build windows

package autostart

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/windows/registry"
)

// On Windows a value under the user's Run key is started at login. The
// installer's "Start at login" writes the same value, so the app's setting
// and the installer's choice are one. Task Manager's Startup tab does not
// remove the value when it disables it: it marks it in StartupApproved,
// which Enabled reads and Enable clears.

const (
	runKey      = `Software\Microsoft\Windows\CurrentVersion\Run`
	approvedKey = `Software\Microsoft\Windows\CurrentVersion\Explorer\StartupApproved\Run`
	// ValueName is the Run value's name (packaging/windows/installer.nsi writes it too).
	ValueName = "DTP Personal Server"
)

// valueName is ValueName, another in the tests (which run on the user's own
// registry).
var valueName = ValueName

// Enable writes the Run value. command is the program (an absolute path)
// followed by its arguments.
func Enable(command []string) error {
	if len(command) == 0 || !filepath.IsAbs(command[0]) {
		return errors.New("autostart: the command must start with an absolute program path")
	}
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	defer k.Close()
	if err := k.SetStringValue(valueName, CommandLine(command)); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	return deleteValue(approvedKey)
}

// Disable removes the Run value; it is not an error if there is none.
func Disable() error {
	if err := deleteValue(runKey); err != nil {
		return err
	}
	return deleteValue(approvedKey)
}

// Enabled reports whether the Run value exists and Task Manager has not
// disabled it.
func Enabled() (bool, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("autostart: %w", err)
	}
	defer k.Close()
	if _, _, err := k.GetStringValue(valueName); errors.Is(err, registry.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("autostart: %w", err)
	}
	return !disabledInTaskManager(), nil
}

// disabledInTaskManager reads StartupApproved: its value starts with an odd
// byte (3) when the entry was disabled, an even one (2) when enabled.
func disabledInTaskManager() bool {
	k, err := registry.OpenKey(registry.CURRENT_USER, approvedKey, registry.QUERY_VALUE)
	if err != nil {
		return false
	}
	defer k.Close()
	v, _, err := k.GetBinaryValue(valueName)
	return err == nil && len(v) > 0 && v[0]&1 == 1
}

// deleteValue removes valueName under key of the current user; a missing
// key or value is not an error.
func deleteValue(key string) error {
	k, err := registry.OpenKey(registry.CURRENT_USER, key, registry.SET_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	defer k.Close()
	if err := k.DeleteValue(valueName); err != nil && !errors.Is(err, registry.ErrNotExist) {
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}

// CommandLine is command as one Windows command line, each argument quoted
// as the C runtime parses it back.
func CommandLine(command []string) string {
	args := make([]string, len(command))
	for i, arg := range command {
		args[i] = syscall.EscapeArg(arg)
	}
	return strings.Join(args, " ")
}
