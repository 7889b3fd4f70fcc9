package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

const eventColumns = `e.id, e.pubkey, e.created_at, e.kind, e.tags, e.content, e.sig`

// scanPageSize bounds how many events Scan holds in memory between callbacks.
const scanPageSize = 2000

// whereClause is a parameterised SQL condition over events aliased "e".
type whereClause struct {
	from string // the events table, with an index hint when one is needed
	// created is the created_at term of conditions: "+e.created_at" when
	// its index must not drive
	created string
	conds   []string
	args    []any
	// none is set when the filter can match nothing (an empty, non-nil list,
	// or a tag key that is not a single letter and so is never indexed).
	none bool
}

func (w *whereClause) in(column string, values []any) {
	if len(values) == 0 {
		w.none = true
		return
	}
	w.conds = append(w.conds, column+" IN ("+placeholders(len(values))+")")
	w.args = append(w.args, values...)
}

func (w *whereClause) sql() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// filterWhere translates NIP-01 filter fields (everything but limit) into SQL.
// A nil list means "any"; a non-nil empty list matches nothing, as in
// nostr.Filter.Matches. Values inside one field are ORed, fields are ANDed.
//
// SQLite has no statistics to pick the driving index (and, left alone,
// prefers the kind index because it avoids a sort), so the SQL steers it: ids,
// then authors (INDEXED BY), then tags drive; a term that must not drive is
// wrapped in unary + (which disables its index) or is a correlated EXISTS.
func filterWhere(f nostr.Filter) whereClause {
	w := whereClause{from: "events e"}
	if f.IDs == nil && f.Authors != nil {
		w.from = "events e INDEXED BY events_author_stamps"
	}
	if f.IDs != nil {
		w.in("e.id", anySlice(f.IDs))
	}
	if f.Authors != nil {
		w.in("e.pubkey", anySlice(f.Authors))
	}
	tagDriven := f.IDs == nil && f.Authors == nil && hasIndexedTagCondition(f.Tags)
	if f.Kinds != nil {
		if tagDriven {
			w.in("+e.kind", anySlice(f.Kinds))
		} else {
			w.in("e.kind", anySlice(f.Kinds))
		}
	}
	for name, values := range f.Tags {
		if values == nil {
			continue
		}
		if !isTagLetter(name) || len(values) == 0 {
			w.none = true
			continue
		}
		w.tag(name, values, tagDriven)
	}
	w.created = "e.created_at"
	if tagDriven {
		w.created = "+e.created_at"
	}
	if f.Since != nil {
		w.conds = append(w.conds, w.created+" >= ?")
		w.args = append(w.args, int64(*f.Since))
	}
	if f.Until != nil {
		w.conds = append(w.conds, w.created+" <= ?")
		w.args = append(w.args, int64(*f.Until))
	}
	return w
}

// servedWhere is filterWhere over the events the server still serves: not
// those whose NIP-40 expiration has passed. They stay stored (the sync's
// view of what is held sees them, so it does not fetch them again). The
// expired rids are one set, read once per statement; a count still needs no
// event row.
func servedWhere(f nostr.Filter) whereClause {
	w := filterWhere(f)
	w.conds = append(w.conds, "e.rid NOT IN (SELECT x.rid FROM expirations x WHERE x.expires_at <= ?)")
	w.args = append(w.args, time.Now().Unix())
	return w
}

func hasIndexedTagCondition(tags nostr.TagMap) bool {
	for name, values := range tags {
		if values != nil && isIndexedTag(name) {
			return true
		}
	}
	return false
}

// tag adds "has a tag name with one of values": for an indexed letter
// candidates come from the hashed tag index (driving the query, or probed per
// row), and the event's own tags confirm the match so hash collisions cannot
// leak through; other letters are checked on the tags alone.
func (w *whereClause) tag(name string, values []string, drive bool) {
	if isIndexedTag(name) {
		hashes := make([]any, len(values))
		for i, v := range values {
			hashes[i] = tagHash(name, v)
		}
		if drive {
			w.conds = append(w.conds, "e.rid IN (SELECT t.rid FROM event_tags t WHERE t.hash IN ("+placeholders(len(hashes))+"))")
		} else {
			w.conds = append(w.conds, "EXISTS (SELECT 1 FROM event_tags t WHERE t.rid = e.rid AND t.hash IN ("+placeholders(len(hashes))+"))")
		}
		w.args = append(w.args, hashes...)
	}
	w.conds = append(w.conds, "EXISTS (SELECT 1 FROM json_each(e.tags) j WHERE j.value ->> 0 = ? AND j.value ->> 1 IN ("+placeholders(len(values))+"))")
	w.args = append(w.args, name)
	w.args = append(w.args, anySlice(values)...)
}

// Query returns the served events matching f (see servedWhere), newest
// first, ties by id ascending. At most min(f.Limit, max) events are
// returned, where an unset f.Limit or a max <= 0 does not cap; "limit":0
// (f.LimitZero) returns nothing.
func (s *Store) Query(ctx context.Context, f nostr.Filter, max int) ([]*nostr.Event, error) {
	var evs []*nostr.Event
	err := s.QueryEach(ctx, f, max, func(ev *nostr.Event) error {
		evs = append(evs, ev)
		return nil
	})
	return evs, err
}

// A query is read in pages bounded in rows and in bytes, each a statement of
// its own: no database connection is held while the caller (a client's
// outgoing queue) waits, and no more than a page is in memory.
const (
	queryPageRows  = 500
	queryPageBytes = 1 << 20
)

// QueryEach calls fn for each event Query would return, in its order,
// reading page by page and holding no database resources while fn runs. An
// error from fn stops it and is returned. Events stored meanwhile may or may
// not be seen; none is seen twice.
func (s *Store) QueryEach(ctx context.Context, f nostr.Filter, max int, fn func(*nostr.Event) error) error {
	remaining := resultLimit(f, max)
	var last *nostr.Event
	for remaining != 0 {
		w := servedWhere(f)
		if w.none || (f.LimitZero && f.Limit == 0) {
			return nil
		}
		if last != nil {
			w.conds = append(w.conds, "("+w.created+" < ? OR ("+w.created+" = ? AND e.id > ?))")
			w.args = append(w.args, int64(last.CreatedAt), int64(last.CreatedAt), last.ID)
		}
		rows := queryPageRows
		if remaining > 0 {
			rows = min(rows, remaining)
		}
		q := "SELECT " + eventColumns + " FROM " + w.from + w.sql() + newestFirst + " LIMIT ?"
		page, more, err := s.readQueryPage(ctx, q, append(w.args, rows), rows)
		if err != nil {
			return fmt.Errorf("store: query %s: %w", f, err)
		}
		for _, ev := range page {
			if err := fn(ev); err != nil {
				return err
			}
		}
		if !more {
			return nil
		}
		if remaining > 0 {
			remaining -= len(page)
		}
		last = page[len(page)-1]
	}
	return nil
}

// readQueryPage reads up to rows events, stopping early once they hold
// queryPageBytes; more says whether the query may have further rows.
func (s *Store) readQueryPage(ctx context.Context, q string, args []any, rows int) (page []*nostr.Event, more bool, err error) {
	rs, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, false, err
	}
	defer rs.Close()
	var row eventRow
	dst := row.dest()
	size := 0
	for rs.Next() {
		if err := rs.Scan(dst...); err != nil {
			return nil, false, err
		}
		ev := new(nostr.Event)
		if err := row.event(ev); err != nil {
			return nil, false, err
		}
		page = append(page, ev)
		if size += len(row.tags) + len(row.content); size >= queryPageBytes {
			return page, true, nil
		}
	}
	return page, len(page) == rows, rs.Err()
}

// querySQL builds Query's statement selecting columns; ok is false when
// nothing can match.
func querySQL(columns string, f nostr.Filter, max int) (q string, args []any, ok bool) {
	return selectSQL(columns, servedWhere(f), f, max, newestFirst)
}

// newestFirst is NIP-01's order of a query's answer.
const newestFirst = " ORDER BY e.created_at DESC, e.id ASC"

// selectSQL selects columns where w holds, at most as many rows as f's
// limit and max allow, in the given ORDER BY clause ("" for none).
func selectSQL(columns string, w whereClause, f nostr.Filter, max int, order string) (q string, args []any, ok bool) {
	limit := resultLimit(f, max)
	if w.none || (f.LimitZero && f.Limit == 0) {
		return "", nil, false
	}
	q = "SELECT " + columns + " FROM " + w.from + w.sql() + order + " LIMIT ?"
	return q, append(w.args, limit), true
}

// resultLimit is how many events a query answers: min(f.Limit, max), where
// an unset f.Limit or a max <= 0 does not cap; -1 (SQLite's "no limit")
// when neither caps.
func resultLimit(f nostr.Filter, max int) int {
	limit := -1
	if max > 0 {
		limit = max
	}
	if f.Limit > 0 && (limit < 0 || f.Limit < limit) {
		limit = f.Limit
	}
	return limit
}

// Count returns how many served events match any of filters (NIP-45: the
// filters are OR-ed, so an event two of them match counts once); limits are
// ignored.
func (s *Store) Count(ctx context.Context, filters ...nostr.Filter) (int64, error) {
	var matches []string // "FROM … WHERE …" of each filter that can match
	var args []any
	for _, f := range filters {
		if w := servedWhere(f); !w.none {
			matches = append(matches, " FROM "+w.from+w.sql())
			args = append(args, w.args...)
		}
	}
	var q string
	switch len(matches) {
	case 0:
		return 0, nil
	case 1: // counted from an index alone where one covers the filter
		q = "SELECT COUNT(*)" + matches[0]
	default:
		q = "SELECT COUNT(*) FROM (SELECT e.rid" + strings.Join(matches, " UNION SELECT e.rid") + ")"
	}
	var n int64
	if err := s.r.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count %v: %w", filters, err)
	}
	return n, nil
}

// Scan calls fn for every stored event whose kind is in kinds (nil kinds:
// every event), in storage order. It reads in pages, one page ahead of fn on
// a background goroutine (so decoding overlaps fn's work), and calls fn
// holding no database resources itself, so fn may use the Store; it is not a
// snapshot: events written during the scan may or may not be seen. An error
// from fn stops the scan and is returned. Scan returns only after its reader
// has stopped.
func (s *Store) Scan(ctx context.Context, kinds []int, fn func(*nostr.Event) error) error {
	rare, err := s.rareKinds(ctx, kinds)
	if err != nil {
		return fmt.Errorf("store: scan kinds %v: %w", kinds, err)
	}
	q, args, ok := scanSQL(kinds, rare)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	pages := make(chan scanPage, 1)
	go s.readPages(ctx, q, args, pages)
	stop := func(err error) error {
		cancel()
		for range pages { // wait for the reader to see the cancel and close
		}
		return err
	}
	for page := range pages {
		if page.err != nil {
			return stop(fmt.Errorf("store: scan kinds %v: %w", kinds, page.err))
		}
		for _, ev := range page.events {
			if err := fn(ev); err != nil {
				return stop(err)
			}
		}
	}
	return stop(nil)
}

// scanPage is one page of Scan, or the error that ended the scan.
type scanPage struct {
	events []*nostr.Event
	err    error
}

// readPages sends the pages of a scan query to pages and closes it, after
// the last page, an error, or ctx's end.
func (s *Store) readPages(ctx context.Context, q string, args []any, pages chan<- scanPage) {
	defer close(pages)
	var after int64
	for {
		events, lastRID, err := s.readPage(ctx, q, append(args, after, scanPageSize)...)
		select {
		case pages <- scanPage{events: events, err: err}:
		case <-ctx.Done():
			return
		}
		if err != nil || len(events) < scanPageSize {
			return
		}
		after = lastRID
	}
}

// rareScan is how many events of the kinds asked for a Scan reads through
// the kind index rather than the table.
const rareScan = 20000

// rareKinds reports whether at most rareScan events are of kinds (nil: all
// kinds, never rare), counted from the kind index.
func (s *Store) rareKinds(ctx context.Context, kinds []int) (bool, error) {
	if kinds == nil {
		return false, nil
	}
	w := whereClause{}
	w.in("kind", anySlice(kinds))
	if w.none {
		return true, nil
	}
	var n int
	err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM events"+w.sql()+" LIMIT ?)", append(w.args, rareScan+1)...).Scan(&n)
	return n <= rareScan, err
}

// scanSQL builds the page query of Scan; its last two parameters are the
// rowid to continue after and the page size. ok is false when nothing can
// match. Walking the rowid keeps every page a range read. Events of rare
// kinds are found through the kind index instead (repository sync's start
// read the whole table twice for none): each page then sorts the rows of
// those kinds left, few by definition.
func scanSQL(kinds []int, rare bool) (q string, args []any, ok bool) {
	w := whereClause{from: "events e NOT INDEXED"}
	if rare {
		w.from = "events e INDEXED BY events_kind_created"
	}
	if kinds != nil {
		w.in("e.kind", anySlice(kinds))
	}
	if w.none {
		return "", nil, false
	}
	w.conds = append(w.conds, "e.rid > ?")
	return "SELECT e.rid, " + eventColumns + " FROM " + w.from + w.sql() + " ORDER BY e.rid LIMIT ?", w.args, true
}

func (s *Store) readPage(ctx context.Context, q string, args ...any) ([]*nostr.Event, int64, error) {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	// A page's events share one allocation, and one row buffer serves
	// every row: Scan reads hundreds of thousands of rows at start-up.
	slab := make([]nostr.Event, scanPageSize)
	evs := make([]*nostr.Event, 0, scanPageSize)
	var rid int64
	var row eventRow
	dst := append([]any{&rid}, row.dest()...)
	for rows.Next() { // at most scanPageSize rows (the LIMIT)
		if err := rows.Scan(dst...); err != nil {
			return nil, 0, err
		}
		ev := &slab[len(evs)]
		if err := row.event(ev); err != nil {
			return nil, 0, err
		}
		evs = append(evs, ev)
	}
	return evs, rid, rows.Err()
}

// eventRow receives the eventColumns of one row.
type eventRow struct {
	id, pubkey, tags, content, sig string
	createdAt                      int64
	kind                           int
}

func (r *eventRow) dest() []any {
	return []any{&r.id, &r.pubkey, &r.createdAt, &r.kind, &r.tags, &r.content, &r.sig}
}

// event fills ev from the row.
func (r *eventRow) event(ev *nostr.Event) error {
	tags, err := decodeTags(r.tags)
	if err != nil {
		return fmt.Errorf("stored tags of %s: %w", r.id, err)
	}
	*ev = nostr.Event{ID: r.id, PubKey: r.pubkey, CreatedAt: nostr.Timestamp(r.createdAt), Kind: r.kind, Tags: tags, Content: r.content, Sig: r.sig}
	return nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func anySlice[T any](values []T) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}
