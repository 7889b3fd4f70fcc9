package main

import (
	"fmt"

	"dtp-personal/engine/settings"
)

// repoServices is `repo-sync service`: our public relay URLs, under which
// repository announcements must list this server.
var repoServices = listCommand{
	name: "repo-sync service", what: "a URL", normalize: settings.NormalizeRelayURL,
	add: settings.AddRepoService, remove: settings.RemoveRepoService,
	list: func(s settings.Settings) []string { return s.RepoSyncServices },
}

// cmdRepoSync runs `repo-sync service add URL | remove URL | list [--json]`
// and `repo-sync bootstrap URL | --none`.
func cmdRepoSync(c *cli) error {
	asJSON := c.fs.Bool("json", false, "print JSON (service list)")
	none := c.fs.Bool("none", false, "no bootstrap relay (bootstrap)")
	if err := c.parse(); err != nil {
		return err
	}
	switch c.positional(0) {
	case "service":
		return runList(c, repoServices, c.args[1:], *asJSON)
	case "bootstrap":
		return setRepoBootstrap(c, c.positional(1), *none)
	}
	return fmt.Errorf("%w: repo-sync %s: use service or bootstrap", errUsage, c.positional(0))
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
