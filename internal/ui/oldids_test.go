package ui

import (
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"perflab/internal/store"
)

// TestOldRunIDsOpen: run directories an older perflab named with ".."
// (or a space, or a '?') in them are listed, and every link the index
// gives them opens (they answered 400).
func TestOldRunIDsOpen(t *testing.T) {
	root := t.TempDir()
	ids := []string{"20240101-120000-my..svc", "20240101-120001-a b?c"}
	for i, id := range ids {
		dir := fixtureRun{id: id, name: "old", at: time.Date(2024, 1, 1, 12, 0, i, 0, time.UTC), fn: "main.search", cpuMs: 1, p99: 10}.write(t, root)
		if err := os.WriteFile(filepath.Join(dir, "target.log"), []byte("listening\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := New(store.Store{Root: root}, Options{})
	code, _, body := get(t, h, "/")
	if code != 200 {
		t.Fatalf("GET /: %d", code)
	}
	hrefs := regexp.MustCompile(`href="(runs/[^"]*)"`).FindAllStringSubmatch(body, -1)
	for _, id := range ids {
		prefix := "runs/" + url.PathEscape(id) + "/"
		n := 0
		for _, m := range hrefs {
			href := html.UnescapeString(m[1])
			if !strings.HasPrefix(href, prefix) {
				continue
			}
			n++
			if code, _, body := get(t, h, "/"+href); code != 200 {
				t.Errorf("run %q: link %s answers %d: %s", id, href, code, strings.TrimSpace(body))
			}
		}
		if n < 4 {
			t.Errorf("run %q: %d links in the index; want its report, flame graph, files and profiles", id, n)
		}
	}
	if code, _, body := get(t, h, "/compare?base="+url.QueryEscape(ids[0])+"&new="+url.QueryEscape(ids[0])+"&force=1"); code == 400 && strings.Contains(body, "not a path") {
		t.Errorf("compare of %q refused as a path: %s", ids[0], body)
	}
}
