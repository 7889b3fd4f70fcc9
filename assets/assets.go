// Package assets holds the app's icon. icon.svg is the source; the PNGs are
// rendered from it with ImageMagick (see packaging/Makefile, target icons).
package assets

import _ "embed"

// IconPNG is the 256 px application icon.
//
//go:embed icon.png
var IconPNG []byte

// TrayPNG is the 64 px tray icon, small enough to send over D-Bus on every
// tray refresh.
//
//go:embed tray.png
var TrayPNG []byte
