package importer

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// readAll drains a source: the events' JSON and where each was.
func readAll(t *testing.T, in io.Reader) (events, wheres []string, format string, err error) {
	t.Helper()
	src, closeSource, err := openSource(in)
	if err != nil {
		return nil, nil, "", err
	}
	defer closeSource()
	for {
		raw, where, err := src.next()
		if errors.Is(err, io.EOF) {
			return events, wheres, src.format(), nil
		}
		if err != nil {
			return events, wheres, src.format(), err
		}
		events, wheres = append(events, string(raw)), append(wheres, where)
	}
}

func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Every form an import reads gives the same events, compacted, each with
// where it was; a zip from a stream (not a file) is copied aside first.
func TestImportFormats(t *testing.T) {
	const a, b = `{"id":"a","kind":1}`, `{"id":"b","kind":2}`
	pretty := "[\n  {\n    \"id\": \"a\",\n    \"kind\": 1\n  },\n  {\"id\":\"b\",\"kind\":2}\n]\n"
	for _, tc := range []struct {
		name, in, format string
		wheres           []string
	}{
		{"jsonl", a + "\n\n" + b + "\n", FormatJSONL, []string{"line 1", "line 3"}},
		{"array", pretty, FormatArray, []string{"event 1", "event 2"}},
		{"array with BOM", "\xef\xbb\xbf" + pretty, FormatArray, []string{"event 1", "event 2"}},
		{"object", `{"exportedAt": 1, "format": "attentionx-export", "version": 1, "events": [` + a + `,` + b + `], "xPosts": []}`,
			FormatObject, []string{"event 1", "event 2"}},
		{"zip", string(zipOf(t, map[string]string{"x/manifest.json": `{"format":"attentionx-export","version":1}`,
			"x/events.json": pretty, "x/x-posts.json": "[]"})), FormatZip, []string{"event 1", "event 2"}},
		{"zip without manifest", string(zipOf(t, map[string]string{"events.json": `{"events":[` + a + "," + b + "]}"})),
			FormatZip, []string{"event 1", "event 2"}},
	} {
		events, wheres, format, err := readAll(t, strings.NewReader(tc.in))
		if err != nil || format != tc.format || strings.Join(events, "|") != a+"|"+b || strings.Join(wheres, ",") != strings.Join(tc.wheres, ",") {
			t.Errorf("%s: %v %q %v %v", tc.name, err, format, events, wheres)
		}
	}
	for _, tc := range []struct{ name, in, refusal string }{
		{"object of another version", `{"version": 2, "events": []}`, "attentionx-export version 2: this program reads version 1"},
		{"object of another format", `{"format": "other", "events": []}`, `format "other" is not attentionx-export`},
		{"object without events", `{"exportedAt": 1}`, `without "events"`},
		{"zip of another format", string(zipOf(t, map[string]string{"manifest.json": `{"format":"other","version":1}`, "events.json": "[]"})),
			`format "other" is not attentionx-export`},
		{"zip without events.json", string(zipOf(t, map[string]string{"manifest.json": `{"format":"attentionx-export","version":1}`})),
			"the zip holds no events.json"},
		{"events.json too deep", string(zipOf(t, map[string]string{"a/b/events.json": "[]"})), "the zip holds no events.json"},
		{"array cut short", "[" + a + ",{\"id\":", "event 2 is not JSON"},
	} {
		if _, _, _, err := readAll(t, strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.refusal) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.refusal)
		}
	}
}
