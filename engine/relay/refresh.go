package relay

import (
	"errors"
	"sync/atomic"

	"dtp-personal/engine/health"
	"dtp-personal/engine/status"
)

// ErrNotReconciled says reconciliation cannot help (nothing held, too much
// held, or the relay refused NIP-77 lately): the history is paged.
var ErrNotReconciled = errors.New("not reconciled")

// RefreshTally counts what NIP-77 did over one daily full refresh of a
// relay (either sync profile); batches may note concurrently. A nil tally
// notes nothing.
type RefreshTally struct {
	offered, reconciled, ids, bytes atomic.Int64
}

// note records one reconciliation of held events: its bytes, and on success
// the ids it settled.
func (t *RefreshTally) note(rec Reconciliation, held int, err error) {
	if t == nil {
		return
	}
	t.offered.Add(1)
	t.bytes.Add(rec.bytes)
	if err == nil {
		t.reconciled.Add(1)
		t.ids.Add(int64(held + len(rec.Need)))
	}
}

// RefreshFigures are a tally's totals.
type RefreshFigures struct {
	reconciled bool // at least one reconciliation succeeded
	ids, bytes int64
}

// Figures are the tally's totals; offered is false when no reconciliation
// was tried (a refresh of nothing held).
func (t *RefreshTally) Figures() (f RefreshFigures, offered bool) {
	return RefreshFigures{reconciled: t.reconciled.Load() > 0, ids: t.ids.Load(), bytes: t.bytes.Load()}, t.offered.Load() > 0
}

// NoteRefresh keeps what NIP-77 did in a daily full refresh of the relay
// (a tally's Figures, when it offered NIP-77) with its health: whether it
// reconciled (else whether the relay refused NIP-77), and its figures.
func (l *Link) NoteRefresh(f RefreshFigures) {
	nip77 := status.NIP77Unknown
	switch {
	case f.reconciled:
		nip77 = status.NIP77Used
	case l.NIP77() == NIP77Unsupported:
		nip77 = status.NIP77Unsupported
	}
	l.update(func(h *health.Health) {
		h.RefreshNIP77, h.RefreshIDs, h.RefreshBytes = nip77, f.ids, f.bytes
	})
}

// refreshStatus is the status of the relay's last daily full refresh that
// offered NIP-77 (NoteRefresh, in this process or an earlier one); a refusal
// of NIP-77 learned since shows at once.
func (l *Link) refreshStatus() status.Refresh {
	h := l.Health()
	r := status.Refresh{NIP77: h.RefreshNIP77, IDsReconciled: h.RefreshIDs, ReconcileBytes: h.RefreshBytes}
	if r.NIP77 == "" || r.NIP77 == status.NIP77Unknown {
		r.NIP77 = status.NIP77Unknown
		if l.NIP77() == NIP77Unsupported {
			r.NIP77 = status.NIP77Unsupported
		}
	}
	return r
}
