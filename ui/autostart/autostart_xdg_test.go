//go:build !windows && !darwin

package autostart

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnableWritesEntryUnderXDGConfigHome(t *testing.T) {
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)

	if on, err := Enabled(); err != nil || on {
		t.Fatalf("Enabled() before Enable = %v, %v; want false, nil", on, err)
	}
	if err := Enable([]string{"/opt/dtp/dtp-personal", "--data", "/home/me/dtp data"}); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(config, "autostart", "dtp-personal.desktop")
	body, err := os.ReadFile(want)
	if err != nil {
		t.Fatalf("entry not at %s: %v", want, err)
	}
	text := string(body)
	for _, line := range []string{
		"[Desktop Entry]",
		"Type=Application",
		`Exec=/opt/dtp/dtp-personal --data "/home/me/dtp data"`,
	} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("entry lacks line %q:\n%s", line, text)
		}
	}
	if on, err := Enabled(); err != nil || !on {
		t.Fatalf("Enabled() after Enable = %v, %v; want true, nil", on, err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(config, "autostart", ".dtp-personal-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}

	if err := Disable(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(want); !os.IsNotExist(err) {
		t.Fatalf("entry still present after Disable: %v", err)
	}
	if err := Disable(); err != nil {
		t.Fatalf("second Disable: %v", err)
	}
}

func TestPathIgnoresRelativeXDGConfigHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, value := range []string{"", "relative/config"} {
		t.Setenv("XDG_CONFIG_HOME", value)
		got, err := Path()
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(home, ".config", "autostart", FileName); got != want {
			t.Errorf("XDG_CONFIG_HOME=%q: Path() = %s, want %s", value, got, want)
		}
	}
}

func TestEnableRefusesRelativeProgram(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, command := range [][]string{nil, {"dtp-personal"}} {
		if err := Enable(command); err == nil {
			t.Errorf("Enable(%q) succeeded; want an error", command)
		}
	}
	if on, _ := Enabled(); on {
		t.Error("a refused Enable left an entry behind")
	}
}

func TestQuoteExecArg(t *testing.T) {
	cases := map[string]string{
		"/usr/bin/dtp-personal": "/usr/bin/dtp-personal",
		"/opt/My Apps/dtp":      `"/opt/My Apps/dtp"`,
		`say"hi`:                `"say\\"hi"`,
		`/odd\dir`:              `"/odd\\\\dir"`,
		"$HOME":                 `"\\$HOME"`,
		"50%":                   "50%%",
		"":                      `""`,
	}
	for in, want := range cases {
		if got := quoteExecArg(in); got != want {
			t.Errorf("quoteExecArg(%q) = %s, want %s", in, got, want)
		}
	}
}
