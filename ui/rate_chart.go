package ui

import (
	"fmt"

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
		lines: make([][]*canvas.Line, len(rateSeries)),
	}
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
	top, left, right *canvas.Text
	lines            [][]*canvas.Line // per series, one per pair of points, and spares from longer series
	objects          []fyne.CanvasObject
}

func (r *rateChartRenderer) MinSize() fyne.Size { return fyne.NewSize(320, 140) }

func (r *rateChartRenderer) Objects() []fyne.CanvasObject { return r.objects }

func (r *rateChartRenderer) Destroy() {}

func (r *rateChartRenderer) Layout(size fyne.Size) {
	label := r.left.MinSize().Height
	plot := fyne.NewSize(size.Width, size.Height-label)
	r.frame.Resize(plot)
	for _, t := range []*canvas.Text{r.top, r.left, r.right} {
		t.Resize(t.MinSize())
	}
	r.top.Move(fyne.NewPos(4, 2))
	r.left.Move(fyne.NewPos(0, plot.Height))
	r.right.Move(fyne.NewPos(size.Width-r.right.MinSize().Width, plot.Height))

	peak := r.c.peak()
	at := func(p ratePoint, v float64) fyne.Position {
		x := plot.Width * float32(1-p.ago.Seconds()/rateWindow.Seconds())
		return fyne.NewPos(x, plot.Height*float32(1-v/peak))
	}
	for si, s := range rateSeries {
		for i, l := range r.lines[si][:max(len(r.c.points)-1, 0)] {
			l.Position1 = at(r.c.points[i], s.of(r.c.points[i]))
			l.Position2 = at(r.c.points[i+1], s.of(r.c.points[i+1]))
		}
	}
}

// Refresh fits the line objects to the points (kept between snapshots, so
// a refresh allocates nothing once the window is full), recolours for the
// theme, and lays them out again.
func (r *rateChartRenderer) Refresh() {
	n := max(len(r.c.points)-1, 0)
	r.frame.StrokeColor = theme.Color(theme.ColorNameSeparator)
	r.top.Text = fmt.Sprintf("%.1f events/s", r.c.peak())
	if n == 0 {
		r.top.Text = "rates show from the second update on"
	}
	r.objects = []fyne.CanvasObject{r.frame, r.top, r.left, r.right}
	for si, s := range rateSeries {
		for len(r.lines[si]) < n {
			l := canvas.NewLine(nil)
			l.StrokeWidth = 2
			r.lines[si] = append(r.lines[si], l)
		}
		for _, l := range r.lines[si][:n] {
			l.StrokeColor = theme.Color(s.color)
			r.objects = append(r.objects, l)
		}
	}
	r.Layout(r.c.Size())
	canvas.Refresh(r.c)
}
