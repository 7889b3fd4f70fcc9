package ui

import (
	"dtp-personal/engine/settings"
	"dtp-personal/ui/autostart"
)

// WithAutostart is eng with a change of the start-at-login setting also
// writing or removing the desktop's autostart entry, which starts command
// at login. The entry is changed first (inside the settings change), so the
// engine never records a choice the desktop lacks.
func WithAutostart(eng Engine, command []string) Engine {
	return autostartEngine{Engine: eng, command: command}
}

type autostartEngine struct {
	Engine
	command []string
}

func (e autostartEngine) Modify(change func(*settings.Settings) error) error {
	return e.Engine.Modify(func(s *settings.Settings) error {
		before := s.StartAtLogin
		if err := change(s); err != nil || s.StartAtLogin == before {
			return err
		}
		if s.StartAtLogin {
			return autostart.Enable(e.command)
		}
		return autostart.Disable()
	})
}

// FollowAutostart sets the start-at-login setting to what the desktop will
// do at login, which may have changed outside the app: the Windows installer
// writes the entry, and the user may remove it by hand or disable it in
// Task Manager's Startup tab.
func FollowAutostart(eng Engine) error {
	on, err := autostart.Enabled()
	if err != nil {
		return err
	}
	return eng.Modify(settings.SetStartAtLogin(on))
}
