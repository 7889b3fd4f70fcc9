package importer

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
)

// The AttentionX extension's own export (its src/storage/portable-export.ts):
// a manifest naming the format and version, and the signed events in
// events.json, an array of NIP-01 events, beside files this server does not
// keep (X identities and posts, the extension's settings). The extension
// may hand it over as a zip of those files or as events.json alone; a single
// JSON object with an "events" array (the export's tables in one file) is
// read too.
const (
	ExportFormat  = "attentionx-export"
	ExportVersion = 1
	exportEvents  = "events.json"
	exportInfo    = "manifest.json"
)

// Formats an import reads (Tally.Format).
const (
	FormatJSONL  = "jsonl"
	FormatArray  = ExportFormat + " " + exportEvents
	FormatObject = ExportFormat + " object"
	FormatZip    = ExportFormat + " zip"
)

// source yields an import's events one by one, as raw JSON.
type source interface {
	// next returns the next event's JSON and a name for where it was in
	// the file ("line 4", "event 4"), or io.EOF after the last.
	next() (raw []byte, where string, err error)
	format() string
}

// peekSize is how much of a file is read ahead to tell its format: enough
// for the first key of a JSON object.
const peekSize = 64 << 10

// openSource tells the format of in and returns its events. A zip needs
// random access: a file is read in place, anything else is first copied to
// a temporary file, which close removes.
func openSource(in io.Reader) (src source, close func(), err error) {
	br := bufio.NewReaderSize(in, peekSize)
	head, _ := br.Peek(peekSize)
	close = func() {}
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		return openZip(in, br)
	}
	src, err = jsonSource(br, head, "")
	return src, close, err
}

// jsonSource reads JSONL, or an export's events as a JSON array or an
// object with "events"; in names the file inside a zip ("" for none).
func jsonSource(r *bufio.Reader, head []byte, in string) (source, error) {
	if bom := []byte("\xef\xbb\xbf"); bytes.HasPrefix(head, bom) { // an editor's byte order mark
		r.Discard(len(bom))
		head = head[len(bom):]
	}
	head = bytes.TrimLeft(head, " \t\r\n")
	switch {
	case len(head) > 0 && head[0] == '[':
		return newArraySource(r, in, FormatArray)
	case len(head) > 0 && head[0] == '{' && !startsLikeEvent(head):
		return newObjectSource(r, in)
	case in != "":
		return nil, fmt.Errorf("%s is neither an array of events nor an object with \"events\"", in)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &lineSource{sc: sc}, nil
}

// eventKeys are the keys of a NIP-01 event: an object that starts with one
// is an event (JSONL), any other object an export.
var eventKeys = []string{"id", "pubkey", "created_at", "kind", "tags", "content", "sig"}

func startsLikeEvent(head []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(head))
	if _, err := dec.Token(); err != nil { // '{'
		return true
	}
	key, err := dec.Token()
	s, isKey := key.(string)
	return err != nil || !isKey || slices.Contains(eventKeys, s)
}

// lineSource is JSONL: one event per line, blank lines skipped.
type lineSource struct {
	sc *bufio.Scanner
	n  int
}

func (s *lineSource) next() ([]byte, string, error) {
	for s.sc.Scan() {
		s.n++
		if text := bytes.TrimSpace(s.sc.Bytes()); len(text) > 0 {
			// the scanner reuses its buffer; an event may be held for another round
			return bytes.Clone(text), "line " + strconv.Itoa(s.n), nil
		}
	}
	if err := s.sc.Err(); err != nil {
		return nil, "", fmt.Errorf("read import: %w", err)
	}
	return nil, "", io.EOF
}

func (*lineSource) format() string { return FormatJSONL }

// arraySource streams the elements of a JSON array of events.
type arraySource struct {
	dec  *json.Decoder
	in   string
	n    int
	kind string
}

// newArraySource reads the opening '[' of r.
func newArraySource(r io.Reader, in, kind string) (*arraySource, error) {
	s := &arraySource{dec: json.NewDecoder(r), in: in, kind: kind}
	if err := s.expect('['); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *arraySource) expect(delim json.Delim) error {
	tok, err := s.dec.Token()
	if err == nil && tok != delim {
		err = fmt.Errorf("found %v where %q was expected", tok, delim)
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", s.name(), err)
	}
	return nil
}

func (s *arraySource) name() string {
	if s.in == "" {
		return "the import"
	}
	return s.in
}

func (s *arraySource) next() ([]byte, string, error) {
	if !s.dec.More() {
		if err := s.expect(']'); err != nil {
			return nil, "", err
		}
		return nil, "", io.EOF
	}
	s.n++
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		// a JSON stream cannot be resumed after a syntax error
		return nil, "", fmt.Errorf("read %s: event %d is not JSON: %w", s.name(), s.n, err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, "", err
	}
	return compact.Bytes(), "event " + strconv.Itoa(s.n), nil
}

func (s *arraySource) format() string { return s.kind }

// newObjectSource reads an export as one JSON object up to its "events"
// array, which it then streams; a "format" or "version" key before it must
// name attentionx-export version 1.
func newObjectSource(r io.Reader, in string) (*arraySource, error) {
	s := &arraySource{dec: json.NewDecoder(r), in: in, kind: FormatObject}
	if err := s.expect('{'); err != nil {
		return nil, err
	}
	var info exportManifest
	for s.dec.More() {
		tok, err := s.dec.Token()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", s.name(), err)
		}
		key, _ := tok.(string)
		switch key {
		case "events":
			if err := s.expect('['); err != nil {
				return nil, err
			}
			return s, nil
		case "format":
			err = s.dec.Decode(&info.Format)
		case "version":
			err = s.dec.Decode(&info.Version)
		default:
			err = s.dec.Decode(new(json.RawMessage))
		}
		if err == nil {
			err = info.check(false)
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", s.name(), err)
		}
	}
	return nil, fmt.Errorf("%s is a JSON object without \"events\": not an %s or a JSONL file", s.name(), ExportFormat)
}

// exportManifest is the part of manifest.json an import checks.
type exportManifest struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

// check refuses another format or version; with required, a missing one too.
func (m exportManifest) check(required bool) error {
	switch {
	case m.Format != "" && m.Format != ExportFormat:
		return fmt.Errorf("format %q is not %s", m.Format, ExportFormat)
	case m.Version != 0 && m.Version != ExportVersion:
		return fmt.Errorf("%s version %d: this program reads version %d", ExportFormat, m.Version, ExportVersion)
	case required && (m.Format == "" || m.Version == 0):
		return fmt.Errorf("%s does not name format %s version %d", exportInfo, ExportFormat, ExportVersion)
	}
	return nil
}

// openZip reads an export's zip: its manifest.json, if present, must name
// attentionx-export version 1, and its events.json (at the top or in one
// folder) holds the events.
func openZip(in io.Reader, buffered *bufio.Reader) (source, func(), error) {
	closeTemp := func() {}
	f, isFile := in.(*os.File)
	if isFile {
		if _, err := f.Seek(0, io.SeekStart); err != nil { // a pipe
			isFile = false
		}
	}
	if !isFile {
		tmp, err := os.CreateTemp("", "dtp-import-*.zip")
		if err != nil {
			return nil, nil, err
		}
		closeTemp = func() { tmp.Close(); os.Remove(tmp.Name()) }
		if _, err := io.Copy(tmp, buffered); err != nil {
			closeTemp()
			return nil, nil, fmt.Errorf("copy the zip aside: %w", err)
		}
		f = tmp
	}
	info, err := f.Stat()
	if err != nil {
		closeTemp()
		return nil, nil, err
	}
	zr, err := zip.NewReader(f, info.Size())
	if err != nil {
		closeTemp()
		return nil, nil, fmt.Errorf("read the zip: %w", err)
	}
	src, closeEntry, err := zipEvents(zr)
	if err != nil {
		closeTemp()
		return nil, nil, err
	}
	return src, func() { closeEntry(); closeTemp() }, nil
}

// zipEvents opens the events of an export's zip.
func zipEvents(zr *zip.Reader) (source, func(), error) {
	var events, manifest *zip.File
	for _, zf := range zr.File {
		if strings.Count(zf.Name, "/") > 1 { // at the top or in one folder
			continue
		}
		name := path.Base(zf.Name)
		switch {
		case name == exportEvents && (events == nil || len(zf.Name) < len(events.Name)):
			events = zf
		case name == exportInfo && (manifest == nil || len(zf.Name) < len(manifest.Name)):
			manifest = zf
		}
	}
	if manifest != nil {
		var m exportManifest
		if err := readJSON(manifest, &m); err != nil {
			return nil, nil, err
		}
		if err := m.check(true); err != nil {
			return nil, nil, fmt.Errorf("this zip is not an export this program reads: %w", err)
		}
	}
	if events == nil {
		return nil, nil, fmt.Errorf("the zip holds no %s (an %s keeps its events there)", exportEvents, ExportFormat)
	}
	rc, err := events.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("open %s in the zip: %w", events.Name, err)
	}
	br := bufio.NewReaderSize(rc, peekSize)
	head, _ := br.Peek(peekSize)
	src, err := jsonSource(br, head, events.Name)
	if err != nil {
		rc.Close()
		return nil, nil, err
	}
	if a, ok := src.(*arraySource); ok {
		a.kind = FormatZip
	}
	return src, func() { rc.Close() }, nil
}

func readJSON(zf *zip.File, v any) error {
	rc, err := zf.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := json.NewDecoder(rc).Decode(v); err != nil {
		return fmt.Errorf("read %s in the zip: %w", zf.Name, err)
	}
	return nil
}
