//go:build windows

package autostart

import (
	"testing"

	"golang.org/x/sys/windows/registry"
)

func TestRunValueFollowsEnableAndTaskManager(t *testing.T) {
	valueName = "DTP Personal Server (test)"
	t.Cleanup(func() { Disable(); valueName = ValueName })
	if on, err := Enabled(); err != nil || on {
		t.Fatalf("Enabled() before Enable = %v, %v; want false, nil", on, err)
	}
	command := []string{`C:\Program Files\DTP Personal Server\dtp-personal.exe`, "--data", `D:\Données de José`}
	if err := Enable(command); err != nil {
		t.Fatal(err)
	}
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := k.GetStringValue(valueName)
	k.Close()
	want := `"C:\Program Files\DTP Personal Server\dtp-personal.exe" --data "D:\Données de José"`
	if err != nil || got != want {
		t.Fatalf("Run value = %q, %v; want %q", got, err, want)
	}
	if on, err := Enabled(); err != nil || !on {
		t.Fatalf("Enabled() after Enable = %v, %v", on, err)
	}

	// Task Manager's Startup tab disables the entry beside the Run key
	approved, _, err := registry.CreateKey(registry.CURRENT_USER, approvedKey, registry.SET_VALUE)
	if err != nil {
		t.Fatal(err)
	}
	err = approved.SetBinaryValue(valueName, []byte{3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	approved.Close()
	if err != nil {
		t.Fatal(err)
	}
	if on, err := Enabled(); err != nil || on {
		t.Fatalf("Enabled() once disabled in Task Manager = %v, %v; want false", on, err)
	}
	if err := Enable(command); err != nil {
		t.Fatal(err)
	}
	if on, err := Enabled(); err != nil || !on {
		t.Fatalf("Enabled() after enabling again = %v, %v; want true", on, err)
	}

	if err := Disable(); err != nil {
		t.Fatal(err)
	}
	if on, err := Enabled(); err != nil || on {
		t.Fatalf("Enabled() after Disable = %v, %v; want false", on, err)
	}
	if err := Disable(); err != nil {
		t.Fatalf("Disable without a value: %v", err)
	}
	if err := Enable([]string{`dtp-personal.exe`}); err == nil {
		t.Fatal("Enable took a relative program path")
	}
}
