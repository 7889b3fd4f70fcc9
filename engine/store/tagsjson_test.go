package store

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// tagsJSONCases cover the fast path (plain strings, whitespace, empty tags)
// and every shape it must hand to encoding/json (escapes, null, numbers,
// invalid UTF-8, control bytes, trailing garbage, truncation).
var tagsJSONCases = []string{
	`[]`, ` [ ] `, `[[]]`, `[[],[]]`, `[["d","x"],["p","ab"],["v","1"]]`,
	"[ [ \"a\" ,\t\"b\" ] ,\n[\"c\"] ]\r\n", `[["é","✓ unicode"]]`, `[["a",""]]`,
	`[["a","q\"uote"]]`, `[["a","\u003cb\u003e"]]`, `[["a","\ud83d\ude00"]]`, `[["a","\ud83d"]]`,
	`[["a","back\\slash"]]`, `[["a","\/"]]`, "[[\"a\",\"\xff\xfe\"]]", "[[\"a\",\"tab\there\"]]",
	`null`, `[null]`, `[["a",null]]`, `[["a",1]]`, `[["a","b"]]x`, `[["a","b"]`, `[["a","b"],]`,
	`[["a",]]`, `[["a" "b"]]`, `[,]`, `["a"]`, `{}`, ``, `[`, `[[`, `[["a`, `[["a\`,
}

func TestDecodeTagsMatchesEncodingJSON(t *testing.T) {
	for _, in := range tagsJSONCases {
		checkDecodeTags(t, in)
	}
	// What SaveBatch writes must take the fast path and round-trip.
	tags := nostr.Tags{{"d", "x"}, {}, {"p", "é"}, {"e", "a", "b", "c"}}
	b, _ := json.Marshal(tags)
	got, ok := decodeTagsFast(string(b))
	if !ok || !reflect.DeepEqual(got, tags) {
		t.Fatalf("fast path on %s: %q ok=%v", b, got, ok)
	}
	// Tags share one backing array: appending to one must not overwrite the next.
	got[0] = append(got[0], "extra")
	if !reflect.DeepEqual(got[1:], tags[1:]) {
		t.Fatalf("append to a tag spilled into its neighbours: %q", got)
	}
}

func FuzzDecodeTags(f *testing.F) {
	for _, in := range tagsJSONCases {
		f.Add(in)
	}
	f.Fuzz(checkDecodeTags)
}

func checkDecodeTags(t *testing.T, in string) {
	var want nostr.Tags
	wantErr := json.Unmarshal([]byte(in), &want)
	got, err := decodeTags(in)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: error %v, encoding/json says %v", in, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decoded %#v, encoding/json %#v", in, got, want)
	}
}
