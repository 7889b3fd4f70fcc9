package ui

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// rateSeries are the chart's three lines: what each draws and its colour.
var rateSeries = []struct {
	name  string
	color fyne.ThemeColorName
	of    func(ratePoint) float64
}{
	{"accepted", theme.ColorNameSuccess, func(p ratePoint) float64 { return p.accepted }},
	{"duplicates", theme.ColorNamePrimary, func(p ratePoint) float64 { return p.duplicates }},
	{"rejected", theme.ColorNameError, func(p ratePoint) float64 { return p.rejected }},
}

// rateChart draws the ingest rates of the last rateWindow as lines on
// Fyne's canvas: now at the right edge, 15 minutes ago at the left, the
// highest rate at the top.
type rateChart struct {
	widget.BaseWidget
	points []ratePoint
}

func newRateChart() *rateChart {
	c := &rateChart{}
	c.ExtendBaseWidget(c)
	return c
}

// show draws points (rateHistory.points).
func (c *rateChart) show(points []ratePoint) {
	c.points = points
	c.Refresh()
}

// peak is the top of the scale: the highest rate, at least 1 event/s.
func (c *rateChart) peak() float64 {
	top := 1.0
	for _, p := range c.points {
		for _, s := range rateSeries {
			top = max(top, s.of(p))
		}
	}
	return top
}

// rateLegend names the lines in their colours.
func rateLegend() fyne.CanvasObject {
	box := container.NewHBox()
	for _, s := range rateSeries {
		t := canvas.NewText("━ "+s.name, theme.Color(s.color))
		t.TextSize = theme.CaptionTextSize()
		box.Add(t)
	}
	return box
}

func (c *rateChart) CreateRenderer() fyne.WidgetRenderer {
	r := &rateChartRenderer{
		c:     c,
		frame: canvas.NewRectangle(nil),
		top:   canvas.NewText("", theme.Color(theme.ColorNameForeground)),
		left:  canvas.NewText("15 min ago", theme.Color(theme.ColorNameDisabled)),
		right: canvas.NewText("now", theme.Color(theme.ColorNameDisabled)),
	}
	// one raster, not a line object per segment: the window repaints it as
	// a single texture, which keeps repaints cheap under software GL
	r.plot = canvas.NewRaster(r.draw)
	r.frame.StrokeWidth = 1
	for _, t := range []*canvas.Text{r.top, r.left, r.right} {
		t.TextSize = theme.CaptionTextSize()
	}
	r.Refresh()
	return r
}

type rateChartRenderer struct {
	c                *rateChart
	frame            *canvas.Rectangle
	plot             *canvas.Raster
	top, left, right *canvas.Text
}

func (r *rateChartRenderer) MinSize() fyne.Size { return fyne.NewSize(320, 140) }

func (r *rateChartRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.plot, r.frame, r.top, r.left, r.right}
}

func (r *rateChartRenderer) Destroy() {}

func (r *rateChartRenderer) Layout(size fyne.Size) {
	plot := fyne.NewSize(size.Width, size.Height-r.left.MinSize().Height)
	r.frame.Resize(plot)
	r.plot.Resize(plot)
	for _, t := range []*canvas.Text{r.top, r.left, r.right} {
		t.Resize(t.MinSize())
	}
	r.top.Move(fyne.NewPos(4, 2))
	r.left.Move(fyne.NewPos(0, plot.Height))
	r.right.Move(fyne.NewPos(size.Width-r.right.MinSize().Width, plot.Height))
}

func (r *rateChartRenderer) Refresh() {
	r.frame.StrokeColor = theme.Color(theme.ColorNameSeparator)
	r.top.Text = fmt.Sprintf("%.1f events/s", r.c.peak())
	if len(r.c.points) < 2 {
		r.top.Text = "rates show from the second update on"
	}
	r.Layout(r.c.Size())
	canvas.Refresh(r.c)
}

// draw paints the lines into a w×h image (device pixels): now at the right
// edge, 15 minutes ago at the left, the peak at the top.
func (r *rateChartRenderer) draw(w, h int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	peak := r.c.peak()
	at := func(p ratePoint, v float64) (int, int) {
		x := float64(w-1) * (1 - p.ago.Seconds()/rateWindow.Seconds())
		return int(x), int(float64(h-1) * (1 - v/peak))
	}
	for _, s := range rateSeries {
		c := theme.Color(s.color)
		for i := 1; i < len(r.c.points); i++ {
			x0, y0 := at(r.c.points[i-1], s.of(r.c.points[i-1]))
			x1, y1 := at(r.c.points[i], s.of(r.c.points[i]))
			drawLine(img, x0, y0, x1, y1, c)
		}
	}
	return img
}

// drawLine draws a two-pixel-thick line (Bresenham's algorithm).
func drawLine(img draw.Image, x0, y0, x1, y1 int, c color.Color) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	for e := dx + dy; ; {
		img.Set(x0, y0, c)
		img.Set(x0, y0+1, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

func abs(n int) int { return max(n, -n) }

func sign(n int) int {
	switch {
	case n > 0:
		return 1
	case n < 0:
		return -1
	}
	return 0
}
