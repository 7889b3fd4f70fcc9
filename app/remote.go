package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"dtp-personal/engine"
)

// withEngine runs fn against the engine of c's data directory: through the
// HTTP API of a running server when there is one, else an engine opened in
// this process for the duration of the call.
func withEngine(c *cli, remote func(engine.Running) error, local func(*engine.Engine) error) error {
	return onEngine(c, engine.Options{}, remote, local)
}

// readEngine is withEngine for commands that only read (status, resolve):
// the engine it opens takes no lock, so it never keeps a server from
// starting on the data directory (SPEC §9).
func readEngine(c *cli, remote func(engine.Running) error, local func(*engine.Engine) error) error {
	return onEngine(c, engine.Options{ReadOnly: true}, remote, local)
}

func onEngine(c *cli, opts engine.Options, remote func(engine.Running) error, local func(*engine.Engine) error) error {
	if r, ok := engine.FindRunning(c.data()); ok {
		// a server that is stopping closes its listener and connections
		// before it gives up the directory: a reader then reads the
		// database itself
		if err := remote(r); err == nil || !opts.ReadOnly || !isTransportError(err) {
			return err
		}
	}
	opts.DataDir, opts.Logger = c.data(), slog.New(slog.NewTextHandler(io.Discard, nil))
	eng, err := openEngine(opts)
	if errors.Is(err, engine.ErrAlreadyRunning) {
		return fmt.Errorf("an engine holds %s but its address is unknown; try again in a moment", c.data())
	}
	if err != nil {
		return err
	}
	defer eng.Close()
	return local(eng)
}

// isTransportError reports whether an HTTP request failed for its
// connection (refused, closed before the answer) rather than by an answer.
func isTransportError(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue)
}

func getJSON(u string, v any) error {
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		return err
	}
	return readAnswer(resp, v)
}

// readAnswer decodes a server's JSON answer into v, or returns its
// {"error": …} with the request's URL and status.
func readAnswer(resp *http.Response, v any) error {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return fmt.Errorf("%s: %s %s", resp.Request.URL, resp.Status, e.Error)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
