package ui

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// hostileRun stores a run whose CPU profile names secret (a file outside
// the run directory) as the source of its hot function, and whose files/
// directory links to secret. It returns the UI's root and the run's ID.
func hostileRun(t *testing.T, secret string) (string, string) {
	t.Helper()
	root := t.TempDir()
	st := store.Store{Root: root}
	dir, id, err := st.Create("hostile", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	fn := &profile.Function{ID: 1, Name: "main.leak", Filename: secret}
	loc := &profile.Location{ID: 1, Address: 0x1000, Line: []profile.Line{{Function: fn, Line: 1}}}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		Sample:     []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{1e9}}},
		Location:   []*profile.Location{loc},
		Function:   []*profile.Function{fn},
		Period:     1e7, PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
	}
	f, err := os.Create(filepath.Join(dir, "profiles", "cpu.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.Mkdir(filepath.Join(dir, "files"), 0o755)
	if err := os.Symlink(secret, filepath.Join(dir, "files", "evil.log")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "report.html")); err != nil {
		t.Fatal(err)
	}
	run := &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Name: "hostile", ID: id, Status: runfmt.StatusComplete,
		Profiles: []runfmt.ProfileRef{{Type: "cpu", Source: runfmt.SourceProfilers(runfmt.ProfilerPprof), File: "profiles/cpu.pb.gz", Samples: 1}}}
	if err := runfmt.WriteFile(dir, run); err != nil {
		t.Fatal(err)
	}
	return root, id
}

func secretFile(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "secret.go")
	const marker = "PERFLAB-TEST-SECRET-7731"
	if err := os.WriteFile(path, []byte("package main // "+marker+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, marker
}

// TestUIReadsOnlyWhatItShould: links out of the run directory are refused,
// and pprof's source view shows a file the profile names only when it is
// under a --source-dir.
func TestUIReadsOnlyWhatItShould(t *testing.T) {
	secret, marker := secretFile(t)
	root, id := hostileRun(t, secret)
	h := New(store.Store{Root: root}, Options{})
	for _, path := range []string{"/runs/" + id + "/files/files/evil.log", "/runs/" + id + "/", "/runs/" + id + "/pprof/cpu/source?f=main.leak"} {
		code, _, body := get(t, h, path)
		if strings.Contains(body, marker) {
			t.Errorf("GET %s (%d) shows the file outside --dir:\n%.300s", path, code, body)
		}
	}
	if code, _, _ := get(t, h, "/runs/"+id+"/files/files/evil.log"); code != http.StatusForbidden {
		t.Errorf("GET a link out of the run directory: %d, want 403", code)
	}
	// A run directory that is itself a link to a directory elsewhere.
	outside := filepath.Dir(secret)
	runfmt.WriteFile(outside, &runfmt.Run{SchemaVersion: runfmt.SchemaVersion, Name: "x", ID: "x"})
	os.Symlink(outside, filepath.Join(root, "20200101-000000-link"))
	if code, _, body := get(t, h, "/runs/20200101-000000-link/files/secret.go"); code != http.StatusNotFound || strings.Contains(body, marker) {
		t.Errorf("GET a file of a linked run directory: %d, want 404", code)
	}
	// With the file's directory as a --source-dir, the source view shows it.
	h = New(store.Store{Root: root}, Options{SourceDirs: []string{filepath.Dir(secret)}})
	if code, _, body := get(t, h, "/runs/"+id+"/pprof/cpu/source?f=main.leak"); code != http.StatusOK || !strings.Contains(body, marker) {
		t.Errorf("source view with --source-dir: %d, %.200s; want the file shown", code, body)
	}
}

// TestUIAnswersLocalClientsOnly: on loopback, a remote client and a
// foreign Host header (DNS rebinding) get 403; cross-site requests that
// change pprof's saved settings are refused, and so is a GET of them.
func TestUIAnswersLocalClientsOnly(t *testing.T) {
	secret, _ := secretFile(t)
	root, id := hostileRun(t, secret)
	h := New(store.Store{Root: root}, Options{LocalOnly: true})
	do := func(method, path string, set func(r *http.Request)) int {
		r := httptest.NewRequest(method, path, nil)
		r.RemoteAddr, r.Host = "127.0.0.1:5555", "127.0.0.1:8080"
		if set != nil {
			set(r)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	for _, tc := range []struct {
		name   string
		method string
		path   string
		set    func(r *http.Request)
		want   int
	}{
		{"local", "GET", "/", nil, http.StatusOK},
		{"localhost name", "GET", "/", func(r *http.Request) { r.Host = "localhost:8080" }, http.StatusOK},
		{"IPv6 loopback", "GET", "/", func(r *http.Request) { r.RemoteAddr, r.Host = "[::1]:5555", "[::1]:8080" }, http.StatusOK},
		{"remote client", "GET", "/", func(r *http.Request) { r.RemoteAddr = "192.0.2.7:5555" }, http.StatusForbidden},
		{"rebound DNS name", "GET", "/", func(r *http.Request) { r.Host = "attacker.example" }, http.StatusForbidden},
		{"cross-site save", "POST", "/runs/" + id + "/pprof/cpu/saveconfig?config=x", func(r *http.Request) {
			r.Header.Set("Sec-Fetch-Site", "cross-site")
		}, http.StatusForbidden},
		{"cross-origin delete", "DELETE", "/runs/" + id + "/pprof/cpu/deleteconfig?config=x", func(r *http.Request) {
			r.Header.Set("Origin", "http://attacker.example")
		}, http.StatusForbidden},
		{"save by GET", "GET", "/runs/" + id + "/pprof/cpu/saveconfig?config=x", nil, http.StatusMethodNotAllowed},
		{"delete by GET", "GET", "/runs/" + id + "/pprof/cpu/deleteconfig?config=x", nil, http.StatusMethodNotAllowed},
	} {
		if got := do(tc.method, tc.path, tc.set); got != tc.want {
			t.Errorf("%s: %s %s = %d, want %d", tc.name, tc.method, tc.path, got, tc.want)
		}
	}
}
