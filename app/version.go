package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// release is this program's version as FyneApp.toml states it, which
// packaging reads too (TestVersionIsFyneAppsVersion keeps the two equal):
// every build says it, however built (go build, run.sh, Fyne's packaging
// tool, a cross build), where a version set only by the packaging's
// -ldflags left the others saying "devel".
const release = "0.1.0"

// version is the release; packaging/Makefile sets it from FyneApp.toml
// (-ldflags "-X main.version=…").
var version = release

// versionName is the version with, for a build from a git checkout, the
// commit it was built from: "0.1.0 (0123456789ab)".
func versionName() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return version + " (" + s.Value[:12] + ")"
			}
		}
	}
	return version
}

// versionLine is what --version prints: the version and the Go release.
func versionLine() string {
	return "dtp-personal " + versionName() + " " + runtime.Version()
}

func cmdVersion(c *cli) error {
	if err := c.parse(0); err != nil {
		return err
	}
	fmt.Println(versionLine())
	return nil
}
