package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// appTheme is Fyne's theme with every colour a person reads at WCAG AA
// contrast (at least 4.5:1) against the grounds it is drawn on, in the dark
// and the light variant (TestThemeTextIsReadable computes each pair).
// Fyne's own fall short: disabled text (help lines, disabled buttons, the
// chart's axis) is 1.5:1 on the dark background, links and errors are
// under 4.5:1 on a button, and the light variant's green and orange are
// under 2.2:1 on white. Primary is fixed rather than the user's choice of
// Fyne primary colour, which no single set of text colours suits.
type appTheme struct{}

// readable are the colours appTheme changes: dark, light (nil: Fyne's).
var readable = map[fyne.ThemeColorName][2]color.Color{
	theme.ColorNameForeground:          {nil, rgb(0x303030)},
	theme.ColorNameDisabled:            {rgb(0x9a9a9c), rgb(0x6b6b6b)},
	theme.ColorNamePlaceHolder:         {nil, rgb(0x6b6b6b)},
	theme.ColorNamePrimary:             {rgb(0x5c9dff), rgb(0x1a5fd6)},
	theme.ColorNameHyperlink:           {rgb(0x5c9dff), rgb(0x1a5fd6)},
	theme.ColorNameForegroundOnPrimary: {rgb(0x171718), rgb(0xffffff)},
	theme.ColorNameError:               {rgb(0xff6e60), rgb(0xc62828)},
	theme.ColorNameSuccess:             {nil, rgb(0x2a7130)},
	theme.ColorNameWarning:             {nil, rgb(0xa14c00)},
}

// rgb is an opaque colour from its hex code.
func rgb(hex uint32) color.Color {
	return color.NRGBA{R: uint8(hex >> 16), G: uint8(hex >> 8), B: uint8(hex), A: 0xff}
}

func (appTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	variant := 1 // light
	if v == theme.VariantDark {
		variant = 0
	}
	if c := readable[n][variant]; c != nil {
		return c
	}
	return theme.DefaultTheme().Color(n, v)
}

func (appTheme) Font(s fyne.TextStyle) fyne.Resource { return theme.DefaultTheme().Font(s) }

func (appTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return theme.DefaultTheme().Icon(n) }

func (appTheme) Size(n fyne.ThemeSizeName) float32 { return theme.DefaultTheme().Size(n) }
