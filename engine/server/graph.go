package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// resolveTimeout bounds one trust question over HTTP.
const resolveTimeout = 10 * time.Second

// serveResolve answers GET /api/v1/resolve?subject=… (one subject) and
// POST /api/v1/resolve with a ResolveQuery body: one subject, or a batch
// (subjects, at most MaxResolveSubjects), answered in order from one walk.
func (s *Server) serveResolve(w http.ResponseWriter, r *http.Request) {
	var q ResolveQuery
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		var err error
		if q, err = queryFromURL(r.URL.Query()); err != nil {
			writeError(w, http.StatusBadRequest, err)
			return
		}
	case http.MethodOptions: // a web page's preflight before its POST (checkAccess allowed its origin)
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodPost:
		body := http.MaxBytesReader(w, r.Body, int64(s.Limits().MaxMessageBytes))
		if err := json.NewDecoder(body).Decode(&q); err != nil {
			writeError(w, http.StatusBadRequest, fmt.Errorf("invalid: the body is not a resolve question "+
				`({"subject": …} or {"subjects": [ … ]}, at most %d bytes): %v`, s.Limits().MaxMessageBytes, err))
			return
		}
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "use GET or POST", http.StatusMethodNotAllowed)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), resolveTimeout)
	defer cancel()
	ans, err := s.resolve(ctx, q)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	writeJSON(w, http.StatusOK, ans)
}

// resolve answers one question, single or batch, for HTTP and WebSocket
// alike; a batch past MaxResolveSubjects is refused as a whole.
func (s *Server) resolve(ctx context.Context, q ResolveQuery) (any, error) {
	switch {
	case s.cfg.Resolver == nil:
		return nil, errors.New("error: resolver not available")
	case q.Subjects == nil && q.Subject == "":
		return nil, errors.New(`invalid: a subject is required ("subject", or "subjects" for a batch)`)
	case q.Subjects == nil:
		return s.cfg.Resolver.Resolve(ctx, q)
	case q.Subject != "":
		return nil, errors.New(`invalid: a question has "subject" or "subjects", not both`)
	case len(q.Subjects) == 0:
		return nil, errors.New("invalid: subjects is empty")
	}
	if most := s.Limits().MaxResolveSubjects; len(q.Subjects) > most {
		s.refused.Inc("too-many-subjects")
		return nil, fmt.Errorf("invalid: %d subjects exceed the limit of %d per question (max_resolve_subjects)", len(q.Subjects), most)
	}
	return s.cfg.Resolver.ResolveBatch(ctx, q)
}

// serveTrusted answers GET /api/v1/trusted?offset=…&limit=… (and the
// question's context, scope, root and band as for resolve): a page of the
// people the roots trust.
func (s *Server) serveTrusted(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Resolver == nil {
		http.NotFound(w, r)
		return
	}
	params := r.URL.Query()
	q, err := queryFromURL(params)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	offset, err := intParam(params, "offset", 0)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	limit, err := intParam(params, "limit", 100)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), resolveTimeout)
	defer cancel()
	page, err := s.cfg.Resolver.Trusted(ctx, q, offset, limit)
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return
	}
	writeJSON(w, http.StatusOK, page)
}

// serveGraphStats answers GET /api/v1/graph/stats.
func (s *Server) serveGraphStats(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Resolver == nil {
		http.NotFound(w, r)
		return
	}
	st, err := s.cfg.Resolver.GraphStats(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// queryFromURL reads a question from URL parameters: subject, context,
// scope, root (repeated) and the band's maxDegree, followThreshold and red.
func queryFromURL(params url.Values) (ResolveQuery, error) {
	q := ResolveQuery{
		Subject: params.Get("subject"),
		Context: params.Get("context"),
		Scope:   params.Get("scope"),
		Roots:   params["root"],
	}
	for _, knob := range []struct {
		name string
		to   **int
	}{{"maxDegree", &q.MaxDegree}, {"followThreshold", &q.FollowThreshold}, {"red", &q.Red}} {
		if params.Get(knob.name) == "" {
			continue
		}
		n, err := intParam(params, knob.name, 0)
		if err != nil {
			return q, err
		}
		*knob.to = &n
	}
	return q, nil
}

// intParam reads a whole-number parameter, def when absent.
func intParam(params url.Values, name string, def int) (int, error) {
	text := params.Get(name)
	if text == "" {
		return def, nil
	}
	n, err := strconv.Atoi(text)
	if err != nil {
		return 0, fmt.Errorf("invalid: %s is not a whole number: %s", name, strconv.Quote(text))
	}
	return n, nil
}

func writeError(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, map[string]string{"error": err.Error()})
}
