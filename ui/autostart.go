package ui

import "dtp-personal/ui/autostart"

// WithAutostart is eng with SetStartAtLogin also writing or removing the
// desktop's autostart entry, which starts command at login. The entry is
// changed first, so the engine never records a choice the desktop lacks.
func WithAutostart(eng Engine, command []string) Engine {
	return autostartEngine{Engine: eng, command: command}
}

type autostartEngine struct {
	Engine
	command []string
}

func (e autostartEngine) SetStartAtLogin(on bool) error {
	var err error
	if on {
		err = autostart.Enable(e.command)
	} else {
		err = autostart.Disable()
	}
	if err != nil {
		return err
	}
	return e.Engine.SetStartAtLogin(on)
}
