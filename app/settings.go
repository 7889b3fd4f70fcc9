package main

import (
	"dtp-personal/engine"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/store"
	"dtp-personal/internal/owneronly"
)

// openStore opens the data directory's database for a settings command. It
// works while a server runs on the same directory: the server notices the
// change through the store's revision within a second.
func openStore(c *cli) (*store.Store, error) {
	if err := owneronly.MkdirAll(c.data()); err != nil {
		return nil, err
	}
	return store.Open(engine.DatabasePath(c.data()))
}

// openSettings opens the data directory's database and reads its settings;
// the caller closes the store.
func openSettings(c *cli) (*store.Store, settings.Settings, error) {
	st, err := openStore(c)
	if err != nil {
		return nil, settings.Settings{}, err
	}
	s, err := settings.Load(st)
	if err != nil {
		st.Close()
		return nil, settings.Settings{}, err
	}
	return st, s, nil
}

// modifySettings changes the data directory's settings (flags left unset
// change nothing) and returns them as stored afterwards, for printing.
func modifySettings(c *cli, change func(*settings.Settings) error) (settings.Settings, error) {
	st, err := openStore(c)
	if err != nil {
		return settings.Settings{}, err
	}
	defer st.Close()
	if err := settings.Modify(st, change); err != nil {
		return settings.Settings{}, err
	}
	return settings.Load(st)
}
