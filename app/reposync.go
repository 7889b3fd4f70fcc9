package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/engine/validation"
)

// repoServices is `repo-sync service`: our public relay URLs, under which
// repository announcements must list this server.
var repoServices = listCommand{
	name: "repo-sync service", what: "a URL", normalize: settings.NormalizeRelayURL,
	add: settings.AddRepoService, remove: settings.RemoveRepoService,
	list:  func(s settings.Settings) []string { return s.RepoSyncServices },
	empty: "no public URL yet, so repository sync is off: `dtp-personal repo-sync service add wss://your.server` turns it on",
}

// cmdRepoSync runs `repo-sync service add URL | remove URL | list [--json]`,
// `repo-sync bootstrap URL | --none`, `repo-sync local-relays [allow |
// refuse]` and `repo-sync status [--json]`.
func cmdRepoSync(c *cli) error {
	asJSON := c.fs.Bool("json", false, "print JSON (service list, status)")
	none := c.fs.Bool("none", false, "no bootstrap relay (bootstrap)")
	if err := c.parse(3); err != nil {
		return err
	}
	switch c.positional(0) {
	case "service":
		return runList(c, repoServices, c.args[1:], *asJSON)
	case "bootstrap":
		if err := c.atMost(2); err != nil {
			return err
		}
		return setRepoBootstrap(c, c.positional(1), *none)
	case "local-relays":
		if err := c.atMost(2); err != nil {
			return err
		}
		return setLocalRelays(c, c.positional(1))
	case "status":
		if err := c.atMost(1); err != nil {
			return err
		}
		return repoSyncStatus(c, *asJSON)
	}
	return fmt.Errorf("%w: repo-sync %s: use service, bootstrap, local-relays or status", errUsage, c.positional(0))
}

// setLocalRelays allows or refuses dialling the local relays that
// announcements name (ws:// and loopback, private, link-local, unique-local
// addresses), or prints the choice when given neither.
func setLocalRelays(c *cli, choice string) error {
	var allow bool
	switch choice {
	case "allow":
		allow = true
	case "refuse", "":
	default:
		return fmt.Errorf("%w: repo-sync local-relays takes allow or refuse, not %q", errUsage, choice)
	}
	st, err := openStore(c)
	if err != nil {
		return err
	}
	defer st.Close()
	if choice != "" {
		if err := settings.Modify(st, settings.SetRepoLocalRelays(allow)); err != nil {
			return err
		}
	}
	s, err := settings.Load(st)
	if err != nil {
		return err
	}
	fmt.Println(localRelaysLine(s.RepoSyncLocalRelays))
	return nil
}

// localRelaysLine says the local-relays choice in words.
func localRelaysLine(allowed bool) string {
	if allowed {
		return "local relays  allowed: ws:// and loopback, private, link-local and unique-local addresses announcements name are dialled"
	}
	return "local relays  refused (the default): only wss:// relays at public addresses are dialled where announcements point; your own relays and the bootstrap relay always are"
}

// setRepoBootstrap sets the bootstrap relay, clears it with --none, or
// prints it when given neither.
func setRepoBootstrap(c *cli, url string, none bool) error {
	if url != "" && none {
		return fmt.Errorf("%w: repo-sync bootstrap takes a URL or --none, not both", errUsage)
	}
	st, err := openStore(c)
	if err != nil {
		return err
	}
	defer st.Close()
	if url != "" || none {
		if err := settings.Modify(st, settings.SetRepoBootstrap(url)); err != nil {
			return err
		}
	}
	s, err := settings.Load(st)
	if err != nil {
		return err
	}
	if s.RepoSyncBootstrap == "" {
		fmt.Println("no bootstrap relay")
		return nil
	}
	fmt.Println("bootstrap relay", s.RepoSyncBootstrap)
	return nil
}

// repoSyncStatus prints the repository profile's status: what it follows and
// each sync relay's connection.
func repoSyncStatus(c *cli, asJSON bool) error {
	snap, err := currentStatus(c)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(snap.RepoSync)
	}
	printRepoSync(os.Stdout, snap.RepoSync)
	return nil
}

func printRepoSync(w io.Writer, rs status.RepoSync) {
	if !rs.Enabled {
		fmt.Fprintln(w, "repository sync is off: set this server's public URL with `repo-sync service add URL`")
		return
	}
	if rs.Paused {
		fmt.Fprintln(w, "paused        the disk is full; connections reopen once a write succeeds")
	}
	bootstrap := rs.Bootstrap
	if bootstrap == "" {
		bootstrap = "none"
	}
	fmt.Fprintf(w, "services      %s\nbootstrap     %s\n", strings.Join(rs.Services, ", "), bootstrap)
	fmt.Fprintf(w, "repositories  %d followed, %d root events, %d events waiting for what they refer to\n",
		rs.Repos, rs.RootEvents, rs.KeptAside)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, r := range rs.Repositories {
		owner, err := validation.EncodeNpub(r.Owner)
		if err != nil {
			owner = r.Owner
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d root events\t%s\n", r.Name, owner, r.RootEvents, strings.Join(r.Relays, " "))
	}
	tw.Flush()
	fmt.Fprintf(w, "sync relays   %d\n", len(rs.Relays))
	for _, r := range rs.Relays {
		conn := "disconnected"
		if r.Connected {
			conn = "connected"
		}
		role := ""
		if r.Bootstrap {
			role = " (bootstrap)"
		}
		fmt.Fprintf(tw, "  %s%s\t%s, %s\t%d filters in %d REQs\t%d repos\t%d events", r.URL, role, r.Health, conn,
			r.Filters, r.Subscriptions, r.Repos, r.EventsReceived)
		if r.LastError != "" {
			fmt.Fprintf(tw, "\tlast error: %s", r.LastError)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	printDialPolicy(w, rs)
}

// printDialPolicy says where announcements may make the server connect and
// which relays they name that it does not dial, counted by reason.
func printDialPolicy(w io.Writer, rs status.RepoSync) {
	local := "refused (only wss:// at public addresses)"
	if rs.LocalRelays {
		local = "allowed"
	}
	fmt.Fprintf(w, "dial policy   local relays %s; at most %d repository relays, %d per repository\n",
		local, rs.MaxRelays, rs.MaxRelaysPerRepo)
	total := 0
	var reasons []string
	for _, reason := range slices.Sorted(maps.Keys(rs.RefusedByReason)) {
		total += rs.RefusedByReason[reason]
		reasons = append(reasons, fmt.Sprintf("%s %d", reason, rs.RefusedByReason[reason]))
	}
	if total == 0 {
		return
	}
	fmt.Fprintf(w, "not dialled   %d (%s)\n", total, strings.Join(reasons, ", "))
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, r := range rs.RefusedRelays {
		fmt.Fprintf(tw, "  %s\t%s\t%d repos\n", r.URL, r.Reason, r.Repos)
	}
	tw.Flush()
	if len(rs.RefusedRelays) < total {
		fmt.Fprintf(w, "  … and %d more, counted above\n", total-len(rs.RefusedRelays))
	}
}
