package ingest

import (
	"strconv"
	"strings"
)

// Outcome is what the pipeline did with one event. It is decided once, where
// the event is answered; the wire message beside it is only for people and
// NIP-01 clients.
type Outcome uint8

const (
	Stored     Outcome = iota + 1 // written in this call's transaction
	Duplicate                     // already held, or a twin of an event in flight
	Superseded                    // older than its slot's winner: held as the winner, not stored
	Rejected                      // refused by a rule (validation, signature)
	Failed                        // the store could not write it
)

func (o Outcome) String() string {
	switch o {
	case Stored:
		return "stored"
	case Duplicate:
		return "duplicate"
	case Superseded:
		return "superseded"
	case Rejected:
		return "rejected"
	case Failed:
		return "failed"
	}
	return "outcome(" + strconv.Itoa(int(o)) + ")"
}

// OK reports an outcome answered `OK true`: the event (or its slot's winner)
// is held now.
func (o Outcome) OK() bool { return o == Stored || o == Duplicate || o == Superseded }

// Wire messages of the outcomes that carry one.
const (
	MsgDuplicate  = "duplicate: already have this event"
	MsgSuperseded = "duplicate: older than current slot winner"
	msgFailed     = "error: could not store event: "
	// msgFull answers a batch the disk had no room for; the engine resumes
	// by itself once a write succeeds again
	msgFull = "error: storage full: the disk holding the database has no room; free space and send again"
)

// ResultFromOK reads a result back from a NIP-01 OK worded by this pipeline,
// for a client that sees only the wire (the CLI importing into a running
// server).
func ResultFromOK(id string, ok bool, message string) Result {
	r := Result{ID: id, Message: message}
	switch {
	case ok && message == MsgSuperseded:
		r.Outcome = Superseded
	case ok && strings.HasPrefix(message, "duplicate:"):
		r.Outcome = Duplicate
	case ok:
		r.Outcome = Stored
	case strings.HasPrefix(message, "error:"):
		r.Outcome = Failed
	default:
		r.Outcome = Rejected
	}
	return r
}
