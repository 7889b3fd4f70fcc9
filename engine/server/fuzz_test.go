package server

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/ingest"
	"dtp-personal/engine/store"
)

// fuzzPorts answer every port at once: nothing stored but two stamps, every push refused,
// every question answered.
type fuzzPorts struct{}

func (fuzzPorts) Submit(_ context.Context, ev *nostr.Event, _ string, done func(ingest.Result)) error {
	done(ingest.Result{ID: ev.ID, Outcome: ingest.Rejected, Message: "invalid: fuzz"})
	return nil
}
func (fuzzPorts) QueryEach(context.Context, nostr.Filter, int, func(*nostr.Event) error) error {
	return nil
}
func (fuzzPorts) Count(context.Context, ...nostr.Filter) (int64, error) { return 0, nil }
func (fuzzPorts) Stamps(context.Context, nostr.Filter, int) ([]store.Stamp, error) {
	return []store.Stamp{{CreatedAt: 1, ID: strings.Repeat("ab", 32)}, {CreatedAt: 2, ID: strings.Repeat("cd", 32)}}, nil
}
func (fuzzPorts) Resolve(_ context.Context, q ResolveQuery) (any, error) {
	if q.Subject == "" {
		return nil, errors.New("invalid: subject is required")
	}
	return q, nil
}
func (fuzzPorts) ResolveBatch(_ context.Context, q ResolveQuery) (any, error) { return q, nil }
func (fuzzPorts) Trusted(_ context.Context, q ResolveQuery, _, _ int) (any, error) {
	return q, nil
}
func (fuzzPorts) GraphStats(context.Context) (any, error) { return map[string]int{}, nil }
func (fuzzPorts) SetSessionRoots(string, []string) error  { return nil }
func (fuzzPorts) DropSession(string)                      {}

// replyLabels are the messages the server may send.
var replyLabels = map[string]bool{
	"OK": true, "EVENT": true, "EOSE": true, "CLOSED": true, "NOTICE": true, "COUNT": true,
	"RESOLVED": true, "ROOTS": true, "NEG-MSG": true, "NEG-ERR": true,
}

// FuzzFrame feeds arbitrary frames to a connection's handler (the frame and
// filter parsers). It must never panic, and every reply must be a JSON array
// led by a message the server may send.
func FuzzFrame(f *testing.F) {
	for _, seed := range []string{
		`["EVENT",{"id":"ab","pubkey":"cd","created_at":1,"kind":32009,"tags":[["d","x"]],"content":"","sig":"ef"}]`,
		`["REQ","s",{"kinds":[32009],"authors":["ab"],"#p":["cd"],"since":1,"until":2,"limit":3}]`,
		`["REQ","s",{"limit":0},{"ids":["ab"]}]`,
		`["COUNT","c",{"kinds":[1]}]`,
		`["CLOSE","s"]`,
		`["RESOLVE","r",{"subject":"ab","context":"identity","roots":["cd"]}]`,
		`["RESOLVE","r",{"subjects":["ab","cd"],"context":"identity"}]`,
		`["ROOTS",["ab"]]`,
		`["NEG-OPEN","n",{"kinds":[32009]},"6100000200"]`, `["NEG-OPEN","n",{},"61"]`, `["NEG-MSG","n","6100"]`,
		`["NEG-CLOSE","n"]`, `["NEG-OPEN","n",{},"zz"]`,
		`["AUTH","x"]`, `[]`, `{}`, `["REQ"]`, `["REQ","",{}]`, `[1,2]`, `["EVENT",null]`,
		" [ \"CLOSE\" , \"<&>\\u2028\\ud800\xff\" ] ",
	} {
		f.Add([]byte(seed))
	}
	s := New(Config{Ingest: fuzzPorts{}, Events: fuzzPorts{}, Resolver: fuzzPorts{}, Sessions: fuzzPorts{}})
	f.Fuzz(func(t *testing.T, frame []byte) {
		checkSplitFrame(t, frame)
		c := s.newConn(nil)
		defer c.cancel()
		c.handle(frame)
		for b, ok := c.next(); ok; b, ok = c.next() {
			var reply []json.RawMessage
			var label string
			if json.Unmarshal(b, &reply) != nil || len(reply) == 0 || json.Unmarshal(reply[0], &label) != nil || !replyLabels[label] {
				t.Fatalf("reply %s to %q is not a server message", b, frame)
			}
		}
	})
}

// checkSplitFrame holds splitFrame to encoding/json's reading of the same
// frame, and okFrame to encoding, as JSON that reads back the same, an OK
// for each string element.
func checkSplitFrame(t *testing.T, data []byte) {
	var want []json.RawMessage
	wantOK := json.Unmarshal(data, &want) == nil && len(want) > 0
	got, ok := splitFrame(data)
	ok = ok && len(got) > 0
	if ok != wantOK {
		t.Fatalf("splitFrame(%q) ok=%v, encoding/json ok=%v", data, ok, wantOK)
	}
	if !ok {
		return
	}
	if len(got) != len(want) {
		t.Fatalf("splitFrame(%q): %d elements, encoding/json %d", data, len(got), len(want))
	}
	for i := range got {
		if string(got[i]) != string(want[i]) {
			t.Fatalf("splitFrame(%q)[%d] = %s, encoding/json %s", data, i, got[i], want[i])
		}
		var id string
		if json.Unmarshal(got[i], &id) != nil {
			continue
		}
		accepted, msg := i%2 == 0, "invalid: "+id
		var reply []any
		if b := okFrame(id, accepted, msg); json.Unmarshal(b, &reply) != nil || !reflect.DeepEqual(reply, []any{"OK", id, accepted, msg}) {
			t.Fatalf("okFrame(%q) = %s", id, b)
		}
	}
}

// TestSplitFrameMatchesEncodingJSON holds splitFrame to encoding/json on the
// corners of the grammar, which FuzzFrame may take long to reach.
func TestSplitFrameMatchesEncodingJSON(t *testing.T) {
	cases := []string{
		`[]`, ` [ ] `, `[1]`, `[1,]`, `[,1]`, `[1 2]`, `[1]x`, `[1]]`, `[`, `]`, ``, ` `, `null`, `"EVENT"`,
		`[0]`, `[-0]`, `[01]`, `[-]`, `[1.]`, `[1.5]`, `[.5]`, `[1e]`, `[1e+]`, `[1e+5]`, `[1E-05]`, `[1.5e3]`, `[+1]`, `[1x]`,
		`[true]`, `[tru]`, `[truex]`, `[false,null]`, `[nul]`, `[True]`,
		`["a\"b"]`, `["\u00e9"]`, `["\u00G9"]`, `["\u12"]`, `["\x"]`, `["\/\b\f\n\r\t"]`, "[\"a\tb\"]", "[\"\x7f\xff\xfe\"]", `["abc`, `["\`,
		`[{}]`, `[{"a":1}]`, `[{"a":1,}]`, `[{"a" 1}]`, `[{a:1}]`, `[{"a":1 "b":2}]`, `[{"a":[1,{"b":[]}]}]`, `[{"a":}]`, `[{,}]`, `[{"a":1}`,
		"[\n\"EVENT\"\r,\t{}\n]\n",
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		`[` + strings.Repeat(`{"a":`, 9998) + `1` + strings.Repeat(`}`, 9998) + `]`,
		`[` + strings.Repeat(`{"a":`, 9999) + `1` + strings.Repeat(`}`, 9999) + `]`,
	}
	for _, c := range cases {
		checkSplitFrame(t, []byte(c))
	}
}
