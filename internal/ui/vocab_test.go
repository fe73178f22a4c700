package ui

import (
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// TestIndexListsARunWithAnUnknownWordAsUnreadable: a run.json with a kind
// or profile type this perflab does not know, or a profile source that is
// not a well-formed profiler's name (another profiler's is read), is
// listed among the unreadable runs with the field and the word, not as a
// run; its page says the same.
func TestIndexListsARunWithAnUnknownWordAsUnreadable(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{`"kind": "hot-user-function"`, `"kind": "hot-function"`, `run.json: findings[1].kind: unknown finding kind "hot-function"`},
		{`"type": "wall"`, `"type": "walltime"`, `run.json: profiles[1].type: unknown profile type "walltime"`},
		{`"source": "go-trace"`, `"source": "eBPF"`, `run.json: profiles[1].source: unknown profile source "eBPF"`},
		{`"kind": "network"`, `"kind": "net"`, `run.json: time_per_request.kinds[1].kind: unknown kind of wall time "net"`},
	} {
		root, ids := fixtureRuns(t)
		bad := ids[1]
		path := filepath.Join(root, bad, runfmt.FileName)
		raw, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(raw), tc.from) {
			t.Fatalf("fixture %s lacks %s (%v)", path, tc.from, err)
		}
		os.WriteFile(path, []byte(strings.Replace(string(raw), tc.from, tc.to, 1)), 0o644)
		h := New(store.Store{Root: root}, Options{})
		_, _, body := get(t, h, "/")
		body = html.UnescapeString(body)
		i := strings.Index(body, "Unreadable run directories")
		if i < 0 || !strings.Contains(body[i:], bad) || !strings.Contains(body[i:], "unreadable: "+tc.want) {
			t.Errorf("%s: the index does not list %s as unreadable with %q", tc.to, bad, tc.want)
		}
		if strings.Contains(body, `href="runs/`+bad+`/"`) {
			t.Errorf("%s: the index links %s as a readable run", tc.to, bad)
		}
		if code, _, page := get(t, h, "/runs/"+bad+"/"); code == 200 || !strings.Contains(html.UnescapeString(page), strings.TrimPrefix(tc.want, "run.json: ")) {
			t.Errorf("%s: the run's page: %d %.300s", tc.to, code, page)
		}
	}
}
