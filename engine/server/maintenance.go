package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/nbd-wtf/go-nostr"
)

// Maintenance removes stored events for the data directory's owner: the
// CLI's prune, delete and db compact against a running server, so the
// server's own caches (heap, duplicate filter, repository index) learn of
// the removal.
type Maintenance interface {
	Prune(ctx context.Context, days int, dryRun bool) (any, error)
	Delete(ctx context.Context, f nostr.Filter, dryRun bool) (any, error)
	Compact(ctx context.Context) (any, error)
}

// MaintenanceRequest is the body of POST /api/v1/prune, /api/v1/delete
// and /api/v1/compact.
type MaintenanceRequest struct {
	Days   int           `json:"days"`             // prune
	Filter *nostr.Filter `json:"filter,omitempty"` // delete
	DryRun bool          `json:"dryRun"`
}

// serveMaintenance answers the owner's removals; anyone else gets 403,
// whatever the access rules let them do otherwise (a removal cannot be
// undone). These may take minutes: no timeout but the client's.
func (s *Server) serveMaintenance(w http.ResponseWriter, r *http.Request, op string) {
	switch {
	case s.cfg.Maintenance == nil:
		http.NotFound(w, r)
		return
	case r.Method != http.MethodPost:
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "use POST", http.StatusMethodNotAllowed)
		return
	case !s.fromOwner(r):
		s.refused.Inc("not-owner")
		writeError(w, http.StatusForbidden, fmt.Errorf("forbidden: %s is for the data directory's owner "+
			"(dtp-personal %s, which presents the token in running.json)", op, op))
		return
	}
	var req MaintenanceRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, int64(s.Limits().MaxMessageBytes))).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("invalid: the body is not a %s request: %v", op, err))
		return
	}
	var report any
	var err error
	switch op {
	case "prune":
		report, err = s.cfg.Maintenance.Prune(r.Context(), req.Days, req.DryRun)
	case "delete":
		if req.Filter == nil {
			writeError(w, http.StatusBadRequest, fmt.Errorf("invalid: delete needs a filter"))
			return
		}
		report, err = s.cfg.Maintenance.Delete(r.Context(), *req.Filter, req.DryRun)
	default:
		report, err = s.cfg.Maintenance.Compact(r.Context())
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	writeJSON(w, http.StatusOK, report)
}
