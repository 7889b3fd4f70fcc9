package main

import (
	"context"
	"io"
	"net/http"
	"strings"

	"dtp-personal/engine"
	"dtp-personal/engine/importer"
	"dtp-personal/engine/ingest"
)

// pushOverWebSocket imports a JSONL stream into a running server over its
// WebSocket, so the events go through that server's pipeline and reach its
// heap: the import algorithm of Engine.Import (importer.Run) over the
// WebSocket transport. The connection presents the server's owner token
// (from running.json), so the import is not held to the push rate limit of
// unknown clients.
func pushOverWebSocket(r engine.Running, in io.Reader, progress func(ingest.Tally)) (ingest.Tally, error) {
	ctx := context.Background()
	ws, err := importer.DialWebSocket(ctx, "ws"+strings.TrimPrefix(r.Base(), "http"),
		http.Header{"Authorization": {"Bearer " + r.Token}})
	if err != nil {
		return ingest.Tally{}, err
	}
	defer ws.Close()
	return importer.Run(ctx, in, ws, progress)
}
