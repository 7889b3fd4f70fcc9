package ui

import (
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// notifyEvery is how often one subject (one relay, the disk, the sync's
// coverage) may notify: a flapping relay must not flood the desktop.
const notifyEvery = 15 * time.Minute

// notifier sends a desktop notification for the few things a user must know
// without looking: a relay marked dead, the disk full, a pass that ended
// partial after having been complete. It compares each snapshot with the
// one before, so a state seen at start-up is not news; Settings.Notify
// switches it off.
type notifier struct {
	send func(*fyne.Notification)
	now  func() time.Time
	sent map[string]time.Time // subject -> last notification
	prev *status.Snapshot
}

func newNotifier(send func(*fyne.Notification), now func() time.Time) *notifier {
	return &notifier{send: send, now: now, sent: map[string]time.Time{}}
}

// observe looks at a new snapshot; UI thread only.
func (n *notifier) observe(s status.Snapshot, c clock) {
	prev := n.prev
	n.prev = &s
	if prev == nil || !s.Settings.Notify {
		return
	}
	for _, r := range s.Relays {
		if r.Health == status.HealthDead && relayHealth(*prev, r.URL) != status.HealthDead {
			n.notify("relay "+r.URL, "Relay marked dead", r.URL+": "+orDash(r.LastError))
		}
	}
	if diskFull(s) && !diskFull(*prev) {
		n.notify("disk", "Disk full", "The engine cannot store events until space is freed.")
	}
	if s.State == status.StatePartial && prev.State != status.StatePartial && prev.Coverage.State == status.StateComplete {
		n.notify("coverage", "Sync ended partial", "Was complete; now partial"+words.FactsOf(s, c).Suffix(s.Coverage.Reasons))
	}
}

// notify sends unless subject notified within notifyEvery.
func (n *notifier) notify(subject, title, content string) {
	now := n.now()
	if last, ok := n.sent[subject]; ok && now.Sub(last) < notifyEvery {
		return
	}
	n.sent[subject] = now
	n.send(fyne.NewNotification("DTP Personal: "+title, content))
}

func relayHealth(s status.Snapshot, url string) string {
	for _, r := range s.Relays {
		if r.URL == url {
			return r.Health
		}
	}
	return ""
}

// diskFull reads the engine's error state: SQLite says "database or disk is
// full", the system "no space left on device".
func diskFull(s status.Snapshot) bool {
	if s.State != status.StateError {
		return false
	}
	for _, r := range s.Coverage.Reasons {
		if strings.Contains(r, "disk is full") || strings.Contains(r, "no space left") {
			return true
		}
	}
	return false
}
