package relay

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/clock"
	"dtp-personal/engine/health"
	"dtp-personal/engine/internal/faultrelay"
	"dtp-personal/internal/testutil"
)

var trustFilter = nostr.Filter{Kinds: []int{32009}, Authors: []string{author}}

// answerTimeout is the page timeout of tests where a relay stays silent on
// purpose: long enough that a loaded machine's slow answer is not read as
// silence, short enough to wait out.
const answerTimeout = time.Second

// stampsOf are evs as the local side of a reconciliation.
func stampsOf(evs []*nostr.Event) func(yield func(nostr.Timestamp, string) bool) {
	return func(yield func(nostr.Timestamp, string) bool) {
		for _, ev := range evs {
			if !yield(ev.CreatedAt, ev.ID) {
				return
			}
		}
	}
}

func idsOf(evs []*nostr.Event) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.ID)
	}
	slices.Sort(out)
	return out
}

// Each side learns exactly the other's surplus, over several rounds, and the
// relay sends no event.
func TestReconcileFindsBothSurpluses(t *testing.T) {
	evs := trustEvents(1000, 1_700_000_000)
	r := faultrelay.StartForTest(t, faultrelay.Mode{}, evs[:990]...)
	c := dial(t, r.URL, Options{})
	rec, err := c.Reconcile(context.Background(), trustFilter, stampsOf(evs[5:]))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.Need, idsOf(evs[:5])) || !slices.Equal(rec.Lacking, idsOf(evs[990:])) {
		t.Fatalf("need %d, lacking %d; want 5 and 10", len(rec.Need), len(rec.Lacking))
	}
	if rec.messages < 2 || rec.bytes == 0 || r.EventsSent() != 0 {
		t.Fatalf("%d messages, %d bytes, %d events sent: want several rounds, bytes counted, no events", rec.messages, rec.bytes, r.EventsSent())
	}
}

// Every way a relay says it does not do NIP-77 is a refusal, not a
// connection failure, and the connection stays usable for paging.
func TestReconcileRefusals(t *testing.T) {
	evs := trustEvents(10, 1_700_000_000)
	for how, why := range map[string]string{
		"NEG-ERR": "NEG-ERR:", "NEG-ERROR": "NEG-ERROR:", "CLOSED": "closed:", "NOTICE": "notice:", "silent": "no answer",
	} {
		t.Run(how, func(t *testing.T) {
			r := faultrelay.StartForTest(t, faultrelay.Mode{NegRefusal: how}, evs...)
			c := dial(t, r.URL, Options{pageTimeout: answerTimeout})
			_, err := c.Reconcile(context.Background(), trustFilter, stampsOf(evs[:5]))
			if !IsReconcileRefused(err) || ConnectionError(err) || !strings.Contains(err.Error(), why) {
				t.Fatalf("err %v: want a refusal (%s) that is not a connection failure", err, why)
			}
			if got, _, err := fetchAll(c); err != nil || len(got) != len(evs) {
				t.Fatalf("paging after the refusal: %d events, %v", len(got), err)
			}
		})
	}
}

// A relay that stops answering after its first reply has stalled: the
// connection is unresponsive, not a refusal (no fallback to paging).
func TestReconcileStall(t *testing.T) {
	evs := trustEvents(1000, 1_700_000_000)
	r := faultrelay.StartForTest(t, faultrelay.Mode{NegStallAfter: 1}, evs[:990]...)
	c := dial(t, r.URL, Options{pageTimeout: answerTimeout})
	_, err := c.Reconcile(context.Background(), trustFilter, stampsOf(evs[5:]))
	if !errors.Is(err, errReconcileStalled) || IsReconcileRefused(err) || !ConnectionError(err) {
		t.Fatalf("err %v: want a stall counted as a connection failure", err)
	}
}

// A NEG-ERR refusing one query as too big pages that query only: the relay
// still counts as doing NIP-77 and a smaller query reconciles, where a relay
// refusing NIP-77 itself is not asked again.
func TestQueryTooBigKeepsTheRelayReconciling(t *testing.T) {
	t.Run("NIP-77's NEG-ERR", func(t *testing.T) { testQueryTooBig(t, faultrelay.Mode{NegMaxItems: 20}) })
	// ["NEG-ERR", id, "ERROR: blocked: this query is too big", 50]: the extra
	// element and the leading ERROR: change nothing
	t.Run("strfry's NEG-ERR", func(t *testing.T) {
		testQueryTooBig(t, faultrelay.Mode{NegMaxItems: 20, NegErrExtra: true, ErrorPrefix: "ERROR: "})
	})
}

func testQueryTooBig(t *testing.T, mode faultrelay.Mode) {
	evs := trustEvents(50, 1_700_000_000)
	r := faultrelay.StartForTest(t, mode, evs...)
	c := dial(t, r.URL, Options{pageTimeout: answerTimeout})
	link := NewLink(health.New(r.URL), Options{}, clock.Wall{}, func(health.Health) {})
	ctx := context.Background()
	_, err := link.reconcile(ctx, c, trustFilter, stampsOf(evs[:5]))
	var refused *reconcileRefusedError
	if !errors.As(err, &refused) || !refused.forQuery || link.NIP77() != NIP77Supported {
		t.Fatalf("err %v, support %v: want a refusal of this query only, the relay still doing NIP-77", err, link.NIP77())
	}
	recent := trustFilter
	since := evs[9].CreatedAt
	recent.Since = &since // the newest 10
	rec, err := link.reconcile(ctx, c, recent, stampsOf(evs[2:10]))
	if err != nil || !slices.Equal(rec.Need, idsOf(evs[:2])) {
		t.Fatalf("smaller query: need %d, %v; want the 2 we lack", len(rec.Need), err)
	}

	mode.NegRefusal = "NEG-ERR"
	off := faultrelay.StartForTest(t, mode, evs...)
	offLink := NewLink(health.New(off.URL), Options{}, clock.Wall{}, func(health.Health) {})
	if _, err := offLink.reconcile(ctx, dial(t, off.URL, Options{pageTimeout: answerTimeout}), recent, stampsOf(evs[2:10])); !IsReconcileRefused(err) || offLink.NIP77() != NIP77Unsupported {
		t.Fatalf("err %v, support %v: want NIP-77 itself refused and remembered", err, offLink.NIP77())
	}
}

// Our NEG-MSGs stay within the relay's NIP-11 max_message_length: a relay
// that ends the connection on a larger frame (strfry) still reconciles a set
// whose differences are spread over every range.
func TestReconcileFramesFitTheRelaysMaxMessageLength(t *testing.T) {
	evs := trustEvents(6000, 1_700_000_000)
	var even []*nostr.Event
	for i := 0; i < len(evs); i += 2 {
		even = append(even, evs[i])
	}
	r := faultrelay.StartForTest(t, faultrelay.Mode{MaxMessageLength: 16 << 10}, even...)
	c := dial(t, r.URL, Options{})
	rec, err := c.Reconcile(context.Background(), trustFilter, stampsOf(evs))
	if err != nil || len(rec.Lacking) != len(evs)-len(even) || len(rec.Need) != 0 {
		t.Fatalf("err %v, the relay lacks %d of ours (want %d), we need %d", err, len(rec.Lacking), len(evs)-len(even), len(rec.Need))
	}
}

// More reconciliations at once than a relay allows per connection (strfry's
// limit answers with a NOTICE naming no session) wait for their turn: every
// one reconciles, none is refused, and the relay still counts as doing
// NIP-77. A refusal for their number that does arrive (a relay allowing
// fewer) refuses that query only.
func TestReconcilesKeepToTheRelaysLimit(t *testing.T) {
	evs := trustEvents(50, 1_700_000_000)
	r := faultrelay.StartForTest(t, faultrelay.Mode{MaxNegSessions: MaxReconcilesInFlight}, evs...)
	// each message takes 50 ms each way, so the reconciliations overlap
	proxy := testutil.StartDelayProxy(t, strings.TrimPrefix(r.URL, "ws://"), 50*time.Millisecond)
	c := dial(t, "ws://"+proxy.Addr, Options{})
	link := NewLink(health.New(r.URL), Options{}, clock.Wall{}, func(health.Health) {})
	errs := make(chan error, 3*MaxReconcilesInFlight)
	for range cap(errs) {
		go func() {
			_, err := link.reconcile(context.Background(), c, trustFilter, stampsOf(evs))
			errs <- err
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Fatalf("a reconciliation failed: %v", err)
		}
	}
	if r.RefusedNegs() != 0 || link.NIP77() != NIP77Supported {
		t.Fatalf("%d refused, support %v: want none refused and NIP-77 in use", r.RefusedNegs(), link.NIP77())
	}

	// a relay allowing one: of two sent at once, one is refused for load
	one := faultrelay.StartForTest(t, faultrelay.Mode{MaxNegSessions: 1}, evs...)
	slow := testutil.StartDelayProxy(t, strings.TrimPrefix(one.URL, "ws://"), 100*time.Millisecond)
	oc := dial(t, "ws://"+slow.Addr, Options{pageTimeout: 5 * time.Second})
	oneLink := NewLink(health.New(one.URL), Options{}, clock.Wall{}, func(health.Health) {})
	for range 2 {
		go func() {
			_, err := oneLink.reconcile(context.Background(), oc, trustFilter, stampsOf(evs))
			errs <- err
		}()
	}
	var refusals int
	for range 2 {
		err := <-errs
		var refused *reconcileRefusedError
		switch {
		case errors.As(err, &refused) && refused.forQuery:
			refusals++
		case err != nil:
			t.Fatalf("err %v: want a refusal of this query only", err)
		}
	}
	if refusals != 1 || one.RefusedNegs() != 1 || oneLink.NIP77() != NIP77Supported {
		t.Fatalf("%d refused (relay: %d), support %v: want one refused for load, NIP-77 still in use", refusals, one.RefusedNegs(), oneLink.NIP77())
	}
}
