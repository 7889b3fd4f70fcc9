package ui

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/ui/words"
)

// reposView is the Repositories tab (repository sync, SPEC §8): this
// server's public URLs and the bootstrap relay, the repositories followed,
// the sync relays with their health and filters, and the relays the dial
// policy does not dial, with why.
type reposView struct {
	g    *GUI
	root fyne.CanvasObject

	summary        *widget.Label
	services       *listEditor
	bootstrap      *syncedEntry
	bootstrapError *inlineError
	localRelays    *widget.Check
	repos          *textTable
	relays         *textTable
	dialPolicy     *widget.Label
	refused        *textTable
	off            fyne.CanvasObject // what the tab is while repository sync is off
	full           fyne.CanvasObject // its settings and tables
	settingUp      bool              // the user chose to set it up
	setUp          *widget.Button
}

var (
	repoColumns     = []string{"Repository", "Owner", "Root events", "Sync relays"}
	repoRelayColumn = []string{"Relay", "Role", "Health", "State", "Connected", "Filters", "REQs", "Repos", "Events", "Last error"}
	refusedColumns  = []string{"Relay", "Why not dialled", "Repos"}
)

// refusalWords say the dial policy's reasons (reposync.Refused*,
// relay.LocalRange) in a person's words.
var refusalWords = map[string]string{
	"not-wss":        "ws:// (only wss:// is dialled)",
	"resolves-local": "its name resolves to a local address",
	"repo-relay-cap": "past the cap on repository relays",
	"per-repo-cap":   "past the cap on relays per repository",
	"loopback":       "loopback address",
	"private":        "private address",
	"link-local":     "link-local address",
	"unique-local":   "unique-local address",
}

func newReposView(g *GUI) *reposView {
	v := &reposView{g: g, summary: widget.NewLabel(""), bootstrapError: newInlineError()}
	v.summary.Wrapping = fyne.TextWrapWord
	v.services = newListEditor(g, "service URL", "Service URL", "wss://relay.example.com (where users reach this server)",
		settings.NormalizeRelayURL, edit(g.eng, settings.AddRepoService), edit(g.eng, settings.RemoveRepoService))
	v.bootstrap = newSyncedEntry(g)
	v.bootstrap.SetPlaceHolder("wss://relay.example.com (optional: where announcements are discovered)")
	v.bootstrap.OnSubmitted = func(string) { v.setBootstrap() }
	v.localRelays = newSettingCheck(g, "Dial local relays that announcements name (ws://, loopback and private addresses)",
		func(s settings.Settings) bool { return s.RepoSyncLocalRelays }, edit(g.eng, settings.SetRepoLocalRelays), v.render)
	v.dialPolicy = widget.NewLabel("")
	v.dialPolicy.Wrapping = fyne.TextWrapWord

	settingsCard := widget.NewCard("Repository sync", "Keeps the git events (NIP-34) of repositories whose announcements list this server",
		container.NewVBox(
			v.summary,
			widget.NewLabel("This server's public URLs"),
			v.services.root,
			widget.NewLabel("Bootstrap relay"),
			container.NewBorder(nil, nil, nil, container.NewHBox(
				widget.NewButton("Set", v.setBootstrap),
				widget.NewButton("Clear", v.clearBootstrap),
			), v.bootstrap.entry),
			v.bootstrapError.label,
			v.localRelays,
		))
	v.repos = newTextTable(repoColumns...).whenEmpty("None yet: an announcement that lists this server's URL adds its repository.")
	v.relays = newTextTable(repoRelayColumn...).whenEmpty("None yet: the relays come from the repositories' announcements.")
	v.relays.table.StickyColumnCount = 1
	v.refused = newTextTable(refusedColumns...).whenEmpty("None: every relay the announcements name is dialled.")
	// the tab scrolls as a whole; each table shows several rows and scrolls beyond
	v.full = container.NewVBox(
		settingsCard,
		widget.NewCard("Repositories followed", "", v.repos.fitted(8)),
		widget.NewCard("Sync relays", "", v.relays.fitted(8)),
		widget.NewCard("Relays not dialled", "An announcement is written by anyone: where it may make this server connect",
			container.NewVBox(v.dialPolicy, v.refused.fitted(6))),
	)
	v.setUp = widget.NewButton("Set up repository sync", func() {
		v.settingUp = true
		v.render(v.g.last)
	})
	offText := widget.NewLabel("If you run this server publicly for git collaboration (NIP-34), it can keep the " +
		"patches, issues and comments of the repositories whose announcements list this server, and serve them " +
		"to git clients. For a personal web of trust you need nothing here.")
	offText.Wrapping = fyne.TextWrapWord
	v.off = widget.NewCard("Repository sync is off", "", container.NewVBox(offText, container.NewHBox(v.setUp)))
	page := container.NewVScroll(container.NewVBox(v.off, v.full))
	for _, t := range []*textTable{v.repos, v.relays, v.refused, v.services.table} {
		t.scrollsIn(page)
	}
	v.root = page
	return v
}

func (v *reposView) setBootstrap() {
	url, err := settings.NormalizeRelayURL(v.bootstrap.Text)
	callChecked(v.g, "Set bootstrap relay", v.bootstrapError, url, err, edit(v.g.eng, settings.SetRepoBootstrap))
}

func (v *reposView) clearBootstrap() {
	v.bootstrap.SetText("")
	callChecked(v.g, "Clear bootstrap relay", v.bootstrapError, "", nil, edit(v.g.eng, settings.SetRepoBootstrap))
}

func (v *reposView) render(s status.Snapshot) {
	rs := s.RepoSync
	if !rs.Enabled && !v.settingUp {
		v.off.Show()
		v.full.Hide()
		return
	}
	v.off.Hide()
	v.full.Show()
	setText(v.summary, repoSummary(rs))
	v.services.show(s.Settings.RepoSyncServices)
	v.bootstrap.show(s.Settings.RepoSyncBootstrap)

	repos := make([][]string, len(rs.Repositories))
	for i, r := range rs.Repositories {
		name := r.Name
		if name == "" {
			name = r.ID
		}
		repos[i] = []string{name, words.Npub(r.Owner), words.Count(r.RootEvents), strings.Join(r.Relays, " ")}
	}
	v.repos.setRows(repos)

	relays := make([][]string, len(rs.Relays))
	for i, r := range rs.Relays {
		role, connected, lastError := "listed", "no", r.LastError
		if r.Bootstrap {
			role = "bootstrap"
		}
		if r.Connected {
			connected = "yes"
		}
		health := r.Health
		if r.CoolingUntil != 0 {
			health += ", cooling down " + v.g.clock.Relative(r.CoolingUntil, "")
		} else if r.NextRetry != 0 && !r.Connected {
			health += ", " + v.g.clock.Retrying(r.NextRetry)
		}
		if lastError == "" {
			lastError = "—"
		}
		relays[i] = []string{r.URL, role, health, r.State, connected, words.Count(r.Filters), words.Count(r.Subscriptions),
			words.Count(r.Repos), words.Count(r.EventsReceived), lastError}
	}
	v.relays.setRows(relays)

	showChecked(v.localRelays, s.Settings.RepoSyncLocalRelays)
	setText(v.dialPolicy, dialPolicySummary(rs))
	refused := make([][]string, len(rs.RefusedRelays))
	for i, r := range rs.RefusedRelays {
		refused[i] = []string{r.URL, cmp.Or(refusalWords[r.Reason], r.Reason), words.Count(r.Repos)}
	}
	v.refused.setRows(refused)
}

// dialPolicySummary says the caps and how many relays are not dialled, by
// reason (the table lists the first status.MaxRefusedListed).
func dialPolicySummary(rs status.RepoSync) string {
	s := fmt.Sprintf("At most %s repository relays, %s per repository; the relays most repositories share are kept.",
		words.Count(rs.MaxRelays), words.Count(rs.MaxRelaysPerRepo))
	total := 0
	var reasons []string
	for _, reason := range slices.Sorted(maps.Keys(rs.RefusedByReason)) {
		n := rs.RefusedByReason[reason]
		total += n
		reasons = append(reasons, fmt.Sprintf("%s: %s", cmp.Or(refusalWords[reason], reason), words.Count(n)))
	}
	if total > 0 {
		s += fmt.Sprintf(" %s not dialled (%s).", words.Count(total), strings.Join(reasons, "; "))
	}
	return s
}

// repoSummary is the tab's first line: off and how to turn it on, or what
// is followed.
func repoSummary(rs status.RepoSync) string {
	if !rs.Enabled {
		return "Off. Add the public URL under which users reach this server; repositories whose announcements list it are kept."
	}
	s := ""
	if rs.Paused {
		s = "Paused while the disk is full. "
	}
	s += fmt.Sprintf("%s repositories followed, %s root events, %s sync relays", words.Count(rs.Repos), words.Count(rs.RootEvents), words.Count(len(rs.Relays)))
	if rs.KeptAside > 0 {
		s += fmt.Sprintf(", %s events waiting for what they refer to", words.Count(rs.KeptAside))
	}
	return s
}

// repoStateLabel is the repository profile's part of the tray line: "" while
// it is off, else how many sync relays are connected.
func repoStateLabel(rs status.RepoSync) string {
	switch {
	case !rs.Enabled:
		return ""
	case rs.Paused:
		return "repos paused (disk full)"
	}
	connected := 0
	for _, r := range rs.Relays {
		if r.Connected {
			connected++
		}
	}
	if connected == len(rs.Relays) {
		return fmt.Sprintf("repos %d live", rs.Repos)
	}
	return fmt.Sprintf("repos %d, %d of %d relays connected", rs.Repos, connected, len(rs.Relays))
}
