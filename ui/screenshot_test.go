package ui

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/software"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// TestScreenshots renders every tab and the tray menu with the fixture to
// docs/screenshots/*.png. It runs only with DTP_SCREENSHOTS=1.
func TestScreenshots(t *testing.T) {
	if os.Getenv("DTP_SCREENSHOTS") != "1" {
		t.Skip("set DTP_SCREENSHOTS=1 to write docs/screenshots")
	}
	dir := filepath.Join("..", "docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	g, _ := newTestGUI(t, tabRelays)
	g.render(withRepos(fixture()))
	g.relays.table.table.Select(fyneCell(1))
	g.relays.form.entry.SetText("http://not-a-relay")
	g.relays.form.submit() // shows the inline error

	c := software.NewCanvas()
	c.SetContent(g.win.Content())
	for i, tab := range g.tabs.Items {
		height := float32(720)
		switch tab.Text {
		case "Settings":
			height = 1320 // the whole form, not just what fits before scrolling
		case "Repositories":
			height = 1100
		}
		c.Resize(fyne.NewSize(1100, height))
		g.tabs.SelectIndex(i)
		refreshTables(c.Content())
		fyne.CurrentApp().Settings().SetTheme(theme.LightTheme())
		writePNG(t, filepath.Join(dir, strings.ToLower(tab.Text)+".png"), c)
	}

	host := &recordingTray{}
	g.AttachTray(host)
	menuCanvas := software.NewCanvas()
	menuCanvas.SetContent(widget.NewMenu(host.menu(t)))
	menuCanvas.Resize(menuCanvas.Content().MinSize())
	writePNG(t, filepath.Join(dir, "tray-menu.png"), menuCanvas)
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
