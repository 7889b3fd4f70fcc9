package ui

import (
	"fmt"
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"

	"dtp-personal/engine/resolver"
	"dtp-personal/ui/words"
)

// verdictBadge is a verdict in words on a coloured ground: green trusted,
// red distrusted, amber mixed, grey when nothing counted.
type verdictBadge struct {
	ground *canvas.Rectangle
	text   *canvas.Text
	root   fyne.CanvasObject
}

func newVerdictBadge() *verdictBadge {
	b := &verdictBadge{ground: canvas.NewRectangle(nil), text: canvas.NewText("", nil)}
	b.ground.CornerRadius = theme.InputRadiusSize()
	b.text.TextStyle.Bold = true
	b.text.TextSize = theme.TextSize() * 1.4
	b.root = container.NewHBox(container.NewStack(b.ground, container.NewPadded(b.text)))
	b.root.Hide()
	return b
}

// verdictLook is a verdict's words and colours.
type verdictLook struct {
	words            string
	ground, contrast fyne.ThemeColorName
}

var verdictLooks = map[string]verdictLook{
	resolver.VerdictTrusted:    {"Trusted", theme.ColorNameSuccess, theme.ColorNameForegroundOnSuccess},
	resolver.VerdictDistrusted: {"Distrusted", theme.ColorNameError, theme.ColorNameForegroundOnError},
	resolver.VerdictMixed:      {"Mixed: trusted and distrusted", theme.ColorNameWarning, theme.ColorNameForegroundOnWarning},
	resolver.VerdictNone:       {"No evidence in your web of trust", theme.ColorNameButton, theme.ColorNameForeground},
}

func (b *verdictBadge) show(verdict string) {
	look, ok := verdictLooks[verdict]
	if !ok {
		look = verdictLooks[resolver.VerdictNone]
		look.words = verdict
	}
	b.text.Text = look.words
	b.text.Color = theme.Color(look.contrast)
	b.ground.FillColor = theme.Color(look.ground)
	b.root.Show()
	b.root.Refresh()
}

// verdictReason says what the verdict was made of: the counts at the
// deciding degree and the percentage that decided, against the band. Empty
// when nobody spoke (the verdict sentence says so).
func verdictReason(a resolver.Answer) string {
	if a.Degree == 0 {
		return ""
	}
	d := a.Degrees[0]
	who := "You"
	if a.Degree > 1 {
		who = "People " + words.Plural(a.Degree-1, "hop") + " from you"
	}
	if a.Percent == nil {
		return who + " made only neutral statements about this, which count for neither side."
	}
	return fmt.Sprintf("%s: %d trust, %d distrust (%d%% trust; trusted from %d%%, distrusted below %d%%).",
		who, d.Trust, d.Distrust, *a.Percent, a.Band.FollowThreshold, a.Band.Red)
}
