//go:build !windows

package main

import (
	"fmt"
	"os"
)

// printError says why the program stops.
func printError(err error) { fmt.Fprintln(os.Stderr, "dtp-personal:", err) }
