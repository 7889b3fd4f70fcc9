//go:build windows

package assets

import _ "embed"

// IconICO is the icon in the sizes Windows asks for (16 to 64 px for the
// tray, title bars and lists at 100 to 200 % scale, and 256 px), rendered
// from icon.svg by packaging/Makefile, target icons. The executable's
// resource (the Explorer and Start-menu icon) is the same file.
//
//go:embed dtp-personal.ico
var IconICO []byte
