package status

import "strings"

// WaitingForStart says that the named settings (Snapshot.RestartNeeded)
// take effect at the next start: one sentence for Modify's answer, the
// CLI's status and the window.
func WaitingForStart(settings []string) string {
	verb := " takes"
	if len(settings) > 1 {
		verb = " take"
	}
	return "the " + strings.Join(settings, " and the ") + verb + " effect when dtp-personal starts again"
}
