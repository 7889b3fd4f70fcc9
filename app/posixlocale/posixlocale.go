// Package posixlocale, imported for its effect, keeps Fyne quiet in the C
// locale that servers and containers often run in (LANG=C.UTF-8). Fyne reads
// the locale while it initialises and logs three lines of "Error parsing user
// locale C" to stderr for "C.UTF-8", on every command, GUI or not; plain "C"
// it reads as English without a word. The locale's messages category is
// therefore set to plain "C" when it is "C.<charset>" or "POSIX.<charset>",
// which means the same. Go initialises packages in import-path order where
// dependencies allow, so this package (dtp-personal/…, depending on os and
// strings only) runs before fyne.io/fyne/v2/lang.
package posixlocale

import (
	"os"
	"strings"
)

func init() {
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := os.Getenv(name)
		if v == "" {
			continue
		}
		base, _, _ := strings.Cut(v, ".")
		if (base == "C" || base == "POSIX") && v != base {
			_ = os.Setenv("LC_MESSAGES", "C")
			if name == "LC_ALL" {
				_ = os.Setenv("LC_ALL", "C")
			}
		}
		return
	}
}
