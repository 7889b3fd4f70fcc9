package ui

import (
	"net"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
)

// clientCard is the Status tab's "Use it with your client": the address a
// Nostr client or the AttentionX extension connects to, what it can do
// there, and that nothing is published anywhere.
type clientCard struct {
	g    *GUI
	root fyne.CanvasObject
	url  *widget.Label
	copy *widget.Button
}

func newClientCard(g *GUI) *clientCard {
	c := &clientCard{g: g, url: widget.NewLabel("")}
	c.url.TextStyle.Monospace = true
	c.copy = widget.NewButton("Copy", func() { g.copyServerURL() })
	what := widget.NewLabel("A Nostr client or the AttentionX browser extension connected here can send it trust " +
		"statements, ratings and identity claims, and ask it whom to trust, answered from this computer. This app " +
		"never publishes anywhere: what you send it stays here.")
	what.Wrapping = fyne.TextWrapWord
	c.root = widget.NewCard("Use it with your client", "",
		container.NewVBox(container.NewBorder(nil, nil, nil, c.copy, c.url), what))
	return c
}

func (c *clientCard) render(s status.Snapshot) {
	setText(c.url, c.g.serverURL(s))
}

// serverURL is the WebSocket URL clients use: the address the server is
// bound to, with the machine's LAN address in place of an unspecified host
// (0.0.0.0, ::) once the server is open to the local network.
func (g *GUI) serverURL(s status.Snapshot) string {
	addr := g.eng.ListenAddr()
	if addr == "" {
		addr = s.Settings.Listen
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "ws://" + addr
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = lanAddress()
	}
	return "ws://" + net.JoinHostPort(host, port)
}

// copyServerURL puts the WebSocket URL on the clipboard, and says so.
func (g *GUI) copyServerURL() {
	url := g.serverURL(g.last)
	g.copyText(url, url)
}

// lanAddress is this machine's first private IPv4 address, or 127.0.0.1.
func lanAddress() string {
	addrs, err := net.InterfaceAddrs()
	if err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && n.IP.IsPrivate() {
				return n.IP.String()
			}
		}
	}
	return "127.0.0.1"
}

// strategyHelp says in one line what a sync strategy does.
func strategyHelp(id string) string {
	switch id {
	case settings.FrontierInterval:
		return "checks the people you trust, and whom they trust, every few minutes (or when you press Sync now)"
	case settings.FrontierContinuous:
		return "stays connected and takes in your trusted network's statements as they are published"
	case settings.GlobalContinuous:
		return "takes in every trust event the relays carry, from anyone: more data, more disk"
	}
	return ""
}
