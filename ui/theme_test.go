package ui

import (
	"image/color"
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// Every text colour the window draws is at least 4.5:1 (WCAG AA) against
// every ground it is drawn on, in the dark and the light variant (issue 31:
// the strategy help, disabled buttons and the chart's axis were 1.5:1 on
// the dark background). Fyne's own theme fails this.
func TestThemeTextIsReadable(t *testing.T) {
	test.NewTempApp(t)
	texts := []fyne.ThemeColorName{theme.ColorNameForeground, theme.ColorNameDisabled, theme.ColorNamePlaceHolder,
		theme.ColorNamePrimary, theme.ColorNameHyperlink, theme.ColorNameError, theme.ColorNameSuccess, theme.ColorNameWarning}
	grounds := []fyne.ThemeColorName{theme.ColorNameBackground, theme.ColorNameInputBackground, theme.ColorNameButton,
		theme.ColorNameDisabledButton, theme.ColorNameHeaderBackground, theme.ColorNameMenuBackground, theme.ColorNameOverlayBackground}
	onColour := [][2]fyne.ThemeColorName{ // button texts and badges on their own colour
		{theme.ColorNameForegroundOnPrimary, theme.ColorNamePrimary}, {theme.ColorNameForegroundOnError, theme.ColorNameError},
		{theme.ColorNameForegroundOnSuccess, theme.ColorNameSuccess}, {theme.ColorNameForegroundOnWarning, theme.ColorNameWarning},
	}
	check := func(th fyne.Theme, t *testing.T) (failures int) {
		for _, v := range []fyne.ThemeVariant{theme.VariantDark, theme.VariantLight} {
			pairs := append([][2]fyne.ThemeColorName(nil), onColour...)
			for _, fg := range texts {
				for _, bg := range grounds {
					pairs = append(pairs, [2]fyne.ThemeColorName{fg, bg})
				}
			}
			for _, p := range pairs {
				if r := contrast(th.Color(p[0], v), th.Color(p[1], v)); r < 4.5 {
					failures++
					if t != nil {
						t.Errorf("variant %d: %s on %s is %.2f:1, want at least 4.5:1", v, p[0], p[1], r)
					}
				}
			}
			// a selected row's text on the selection over the background
			sel := over(th.Color(theme.ColorNameSelection, v), th.Color(theme.ColorNameBackground, v))
			if r := contrast(th.Color(theme.ColorNameForeground, v), sel); r < 4.5 {
				failures++
				if t != nil {
					t.Errorf("variant %d: text on a selected row is %.2f:1", v, r)
				}
			}
		}
		return failures
	}
	check(appTheme{}, t)
	if check(theme.DefaultTheme(), nil) == 0 {
		t.Error("Fyne's own theme passes too: this test would not notice a regression")
	}
}

// contrast is the WCAG contrast ratio of two opaque colours.
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// luminance is WCAG's relative luminance.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	channel := func(v uint32) float64 {
		s := float64(v) / 0xffff
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*channel(r) + 0.7152*channel(g) + 0.0722*channel(b)
}

// over is a translucent colour painted over an opaque one.
func over(top, ground color.Color) color.Color {
	n := color.NRGBAModel.Convert(top).(color.NRGBA)
	g := color.NRGBAModel.Convert(ground).(color.NRGBA)
	a := float64(n.A) / 255
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*a + float64(y)*(1-a))) }
	return color.NRGBA{R: mix(n.R, g.R), G: mix(n.G, g.G), B: mix(n.B, g.B), A: 0xff}
}
