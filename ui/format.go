package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nbd-wtf/go-nostr/nip19"

	"dtp-personal/engine/status"
)

// clock is the time and zone the views format timestamps against.
type clock struct {
	now  func() time.Time
	zone *time.Location
}

func systemClock() clock { return clock{now: time.Now, zone: time.Local} }

// stamp shows a unix time as a local date and time; 0 shows none.
func (c clock) stamp(unix int64, none string) string {
	if unix == 0 {
		return none
	}
	return time.Unix(unix, 0).In(c.zone).Format("2006-01-02 15:04")
}

// day shows a unix time as a local date.
func (c clock) day(unix int64) string {
	return time.Unix(unix, 0).In(c.zone).Format("2006-01-02")
}

// relative shows a unix time as "5 min ago" / "in 5 min"; 0 shows none.
func (c clock) relative(unix int64, none string) string {
	if unix == 0 {
		return none
	}
	d := time.Unix(unix, 0).Sub(c.now()).Round(time.Second)
	switch {
	case d < -time.Second:
		return roughDuration(-d) + " ago"
	case d > time.Second:
		return "in " + roughDuration(d)
	}
	return "now"
}

// retrying says when a failed relay is tried again: "retrying in 20 s",
// or "retrying now" once that time has come (the engine is about to try, or
// trying: "2 s ago" would read as a retry that happened).
func (c clock) retrying(unix int64) string {
	if time.Unix(unix, 0).Sub(c.now()) <= time.Second {
		return "retrying now"
	}
	return "retrying " + c.relative(unix, "")
}

func roughDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

// count writes n with thousands separators: 1234567 -> "1,234,567".
func count[N int | int64](n N) string {
	digits := strconv.FormatInt(int64(n), 10)
	sign := ""
	if digits[0] == '-' {
		sign, digits = "-", digits[1:]
	}
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return sign + b.String()
}

// intervalLabel names an interval choice in minutes; 0 is manual.
func intervalLabel(minutes int) string {
	if minutes == 0 {
		return "Manual only"
	}
	return fmt.Sprintf("Every %d min", minutes)
}

// displayKey shows a hex public key in npub form, or as given if it is not
// a valid key (the engine's word is shown rather than hidden).
func displayKey(hexKey string) string {
	if len(hexKey) == 64 {
		if n, err := nip19.EncodePublicKey(hexKey); err == nil {
			return n
		}
	}
	return hexKey
}

// stateLabel is the one-line state for the tray title and tooltip and the
// Status tab, in words that say what happens: paused, error: why,
// syncing 42% — trust pass, live on 3 of 4 relays, partial: why.
func stateLabel(s status.Snapshot, c clock) string {
	facts := coverageFacts{clock: c, truncation: s.Frontier.Truncation, relays: s.Relays}
	switch {
	case s.Paused:
		return "paused"
	case s.State == status.StateError:
		return "error" + facts.suffix(diskFullFirst(s.Coverage.Reasons))
	case s.State == status.StateRunning:
		return "syncing" + progressWords(s.Progress)
	case s.State == status.StateLive || s.State == status.StateConnecting || s.State == status.StateReconnecting:
		return liveWords(s) + facts.partialSuffix(s.Coverage)
	case s.State == status.StatePartial || s.Coverage.State == status.StatePartial:
		return "partial" + facts.suffix(s.Coverage.Reasons)
	case s.State == "":
		return "starting"
	}
	return s.State
}

// progressWords is a running pass's progress as counted: ": 12 of 40
// authors (trust pass)", "" before the pass knows its total. A percentage
// would read "0%" while events flow in from the first authors.
func progressWords(p status.Progress) string {
	if p.Total <= 0 {
		return ""
	}
	return fmt.Sprintf(": %s of %s (%s pass)", count(p.Done), plural(p.Total, passKey(p.Pass)), p.Pass)
}

// paceWords are a running pass's pace and time left, as far as it knows
// them: " · 8,120 events/s · about 2 min left".
func paceWords(p status.Progress) string {
	var out string
	if p.EventsPerSecond >= 1 {
		out += " · " + count(int64(p.EventsPerSecond)) + " events/s"
	}
	if p.SecondsLeft > 0 {
		out += " · about " + roughDuration(time.Duration(p.SecondsLeft)*time.Second) + " left"
	}
	return out
}

// summaryLine is the one line a person reads first: "70 people in your web
// of trust · 275 statements · live on 1 of 2 relays · updated 5 s ago".
func summaryLine(s status.Snapshot, c clock) string {
	people := count(s.Frontier.Size) + " people"
	if s.Frontier.Size == 1 {
		people = "1 person"
	}
	doing := s.Coverage.State
	switch {
	case len(s.Relays) == 0:
		doing = "no relays yet"
	case s.Paused:
		doing = "paused"
	case s.State == status.StateError:
		doing = "error"
	case s.State == status.StateRunning:
		doing = "syncing"
	case s.State == status.StateLive || s.State == status.StateConnecting || s.State == status.StateReconnecting:
		doing = liveWords(s)
	}
	updated := "Last sync: never"
	if s.LastSync != 0 {
		updated = "updated " + c.relative(s.LastSync, "")
	}
	return strings.Join([]string{people + " in your web of trust", plural(s.Heap.Edges, "statement"), doing, updated}, " · ")
}

// diskFullFirst is reasons with disk-full leading: the one reason of an
// error the user can act on, which sorting would put behind others.
func diskFullFirst(reasons []string) []string {
	i := slices.Index(reasons, status.ReasonDiskFull)
	if i <= 0 {
		return reasons
	}
	return slices.Concat([]string{status.ReasonDiskFull}, reasons[:i], reasons[i+1:])
}

// liveWords says how many sync relays a live subscription holds.
func liveWords(s status.Snapshot) string {
	connected := 0
	for _, r := range s.Relays {
		if r.Connected {
			connected++
		}
	}
	if s.State != status.StateLive {
		return fmt.Sprintf("%s (%d of %d relays up)", s.State, connected, len(s.Relays))
	}
	return fmt.Sprintf("live on %d of %d relays", connected, len(s.Relays))
}

// plural is n and the noun, "1 rating" or "2 ratings".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return count(n) + " " + noun + "s"
}
