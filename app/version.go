package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is the release, set by packaging/Makefile from FyneApp.toml
// (-ldflags "-X main.version=…"); a plain go build says devel.
var version = "devel"

// versionLine is what --version prints: the release, and for a build from a
// git checkout the commit it was built from.
func versionLine() string {
	line := "dtp-personal " + version
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				line += " (" + s.Value[:12] + ")"
			}
		}
	}
	return line + " " + runtime.Version()
}

func cmdVersion(c *cli) error {
	if err := c.parse(0); err != nil {
		return err
	}
	fmt.Println(versionLine())
	return nil
}
