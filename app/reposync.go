package main

import (
	"fmt"
	"io"
	"os"
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
// `repo-sync bootstrap URL | --none` and `repo-sync status [--json]`.
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
	case "status":
		if err := c.atMost(1); err != nil {
			return err
		}
		return repoSyncStatus(c, *asJSON)
	}
	return fmt.Errorf("%w: repo-sync %s: use service, bootstrap or status", errUsage, c.positional(0))
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
}
