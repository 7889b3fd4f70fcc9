package ui

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/software"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// TestScreenshots renders the tray menu to docs/screenshots/tray-menu.png
// (a D-Bus menu, which the real-window screenshots of the tabs cannot
// capture: app.TestWindowScreenshots). It runs only with DTP_SCREENSHOTS=1.
func TestScreenshots(t *testing.T) {
	if os.Getenv("DTP_SCREENSHOTS") != "1" {
		t.Skip("set DTP_SCREENSHOTS=1 to write docs/screenshots")
	}
	g, _ := newTestGUI(t, tabStatus)
	host := &recordingTray{}
	g.AttachTray(host)
	menuCanvas := software.NewCanvas()
	menuCanvas.SetContent(widget.NewMenu(host.menu(t)))
	menuCanvas.Resize(menuCanvas.Content().MinSize())
	writePNG(t, filepath.Join("..", "docs", "screenshots", "tray-menu.png"), menuCanvas)
}

func writePNG(t *testing.T, path string, c fyne.Canvas) {
	t.Helper()
	img := software.RenderCanvas(c, theme.LightTheme())
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%dx%d)", path, img.Bounds().Dx(), img.Bounds().Dy())
}
