package engine

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/nbd-wtf/go-nostr"

	"dtp-personal/engine/fixture"
	"dtp-personal/engine/settings"
	"dtp-personal/engine/status"
	"dtp-personal/internal/testutil"
)

func httpGet(t *testing.T, url string, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestHTTPEndpoints(t *testing.T) {
	t.Parallel()
	eng, wsURL := startEngine(t, Options{})
	base := "http" + strings.TrimPrefix(wsURL, "ws")
	root, alice := fixture.NewAuthor(1), fixture.NewAuthor(2)
	if err := eng.Modify(settings.AddRoot(root.Pubkey)); err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, wsURL)
	c.push(root.Trust(fixture.P(alice.Pubkey), "1", t0))
	c.push(root.Sign(&nostr.Event{Kind: 1, CreatedAt: t0, Content: "not a trust event"}))

	code, body := httpGet(t, base+"/", "Accept", "application/nostr+json")
	var info struct {
		Name          string `json:"name"`
		SupportedNIPs []int  `json:"supported_nips"`
		Limitation    struct {
			MaxMessageLength int `json:"max_message_length"`
			MaxSubscriptions int `json:"max_subscriptions"`
		} `json:"limitation"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &info) != nil || info.Name != "dtp-personal" || info.Limitation.MaxMessageLength == 0 ||
		!slices.Contains(info.SupportedNIPs, 77) {
		t.Fatalf("NIP-11: %d %s", code, body)
	}

	code, body = httpGet(t, base+"/api/v1/status")
	var st status.Snapshot
	if code != 200 || json.Unmarshal([]byte(body), &st) != nil {
		t.Fatalf("status: %d %s", code, body)
	}
	if st.Strategy != settings.FrontierInterval || st.Heap.Edges != 1 || st.Heap.NodeLimit != 1000000 || st.Ingest.Accepted != 1 || st.Ingest.Rejected != 1 {
		t.Fatalf("status does not reflect the engine: %+v", st)
	}
	if len(st.Ingest.RecentRejections) != 1 || !strings.HasPrefix(st.Ingest.RecentRejections[0].Reason, "blocked: kind 1") {
		t.Fatalf("recent rejections %+v", st.Ingest.RecentRejections)
	}

	testutil.Eventually(t, "alice in the frontier", func() bool { return eng.Status().Frontier.Size == 2 })
	code, body = httpGet(t, base+"/api/v1/resolve?subject="+alice.Pubkey)
	var ans Answer
	if code != 200 || json.Unmarshal([]byte(body), &ans) != nil || ans.Verdict != "trusted" || len(ans.Evidence) != 1 {
		t.Fatalf("resolve: %d %s", code, body)
	}
	if code, body = httpGet(t, base+"/api/v1/resolve?subject=nonsense"); code != 400 || !strings.Contains(body, "error") {
		t.Fatalf("resolve of a bad subject: %d %s", code, body)
	}

	code, body = httpGet(t, base+"/metrics")
	for _, want := range []string{
		`dtp_ingest_accepted_total{source="push"} 1`,
		`dtp_ingest_rejected_total{reason="blocked"} 1`,
		"dtp_heap_edges 1", "dtp_frontier_size 2", "# TYPE dtp_ingest_duplicates_total counter",
		"\ngo_goroutines ", "\nprocess_start_time_seconds ",
	} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
}
