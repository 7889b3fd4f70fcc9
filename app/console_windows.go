//go:build windows

package main

import (
	"fmt"
	"log"
	"os"

	"golang.org/x/sys/windows"
)

// The Windows executable is a GUI program (linked -H windowsgui), so no
// console window opens when it starts from the Start menu or at login, and
// Windows gives it no standard streams. Started from a terminal, it attaches
// to that terminal's console, so the commands print there and Ctrl+C stops
// `serve`; a stream the caller redirected (`export > all.jsonl`, a pipe) is
// kept as it is.

// hasStderr reports whether standard error reaches anybody: redirected, or
// a console. Without it printError shows a message box.
var hasStderr bool

func init() { useParentConsole() }

var attachConsole = windows.NewLazySystemDLL("kernel32.dll").NewProc("AttachConsole")

// attachParentProcess is AttachConsole's ATTACH_PARENT_PROCESS, (DWORD)-1.
const attachParentProcess = ^uintptr(0)

// useParentConsole fills each missing standard stream from the parent's
// console, if it has one.
func useParentConsole() {
	streams := []struct {
		id     uint32
		file   **os.File
		device string
	}{
		{windows.STD_INPUT_HANDLE, &os.Stdin, "CONIN$"},
		{windows.STD_OUTPUT_HANDLE, &os.Stdout, "CONOUT$"},
		{windows.STD_ERROR_HANDLE, &os.Stderr, "CONOUT$"},
	}
	attached := false
	for _, s := range streams {
		if usable(s.id) {
			continue
		}
		if !attached {
			if ok, _, _ := attachConsole.Call(attachParentProcess); ok == 0 {
				break // started from the menu, or by a program without a console
			}
			attached = true
		}
		name, _ := windows.UTF16PtrFromString(s.device)
		h, err := windows.CreateFile(name, windows.GENERIC_READ|windows.GENERIC_WRITE,
			windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil, windows.OPEN_EXISTING, 0, 0)
		if err != nil {
			continue
		}
		_ = windows.SetStdHandle(s.id, h)
		*s.file = os.NewFile(uintptr(h), s.device)
	}
	hasStderr = usable(windows.STD_ERROR_HANDLE)
	log.SetOutput(os.Stderr) // the log package took the stream before this ran
}

// usable reports whether the standard stream id is open to something.
func usable(id uint32) bool {
	h, err := windows.GetStdHandle(id)
	if err != nil || h == 0 || h == windows.InvalidHandle {
		return false
	}
	t, _ := windows.GetFileType(h)
	return t != windows.FILE_TYPE_UNKNOWN
}

// printError says why the program stops: on standard error, or in a message
// box when nobody would read it there (the app started from the menu).
func printError(err error) {
	if hasStderr {
		fmt.Fprintln(os.Stderr, "dtp-personal:", err)
		return
	}
	text, _ := windows.UTF16PtrFromString(err.Error())
	title, _ := windows.UTF16PtrFromString("DTP Personal Server")
	_, _ = windows.MessageBox(0, text, title, windows.MB_OK|windows.MB_ICONERROR)
}
