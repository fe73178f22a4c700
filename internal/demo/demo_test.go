package demo

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"
)

// startBoth starts a planted and a fixed demo server for the test.
func startBoth(t *testing.T) (planted, fixed *Server) {
	t.Helper()
	for _, f := range []bool{false, true} {
		s, err := Start(Config{Fixed: f})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		if f {
			fixed = s
		} else {
			planted = s
		}
	}
	return planted, fixed
}

func fetch(t *testing.T, method, url, body string) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

func TestEndpointsSameInBothBuilds(t *testing.T) {
	planted, fixed := startBoth(t)
	postBody := "level=info status=200 dur_ms=1.5\nlevel=error status=503 dur_ms=20\nbroken line\n"
	for _, tc := range []struct{ method, path, body, wantType, wantSub string }{
		{"GET", "/healthz", "", "", "ok"},
		{"GET", "/search?q=Steel+Lamp", "", "application/json", `"count":`},
		{"GET", "/search?q=no-such-thing", "", "application/json", `"count":0,"names":[]`},
		{"GET", "/api/item?id=7", "", "application/json", `"id":7,`},
		{"GET", "/ingest", "", "application/json", `"lines":300,"malformed":0`},
		{"POST", "/ingest", postBody, "application/json", `"lines":3,"malformed":1,"server_errors":1`},
		{"GET", "/render", "", "image/png", "\x89PNG"},
	} {
		c1, ct1, b1 := fetch(t, tc.method, planted.URL()+tc.path, tc.body)
		c2, ct2, b2 := fetch(t, tc.method, fixed.URL()+tc.path, tc.body)
		if c1 != 200 || c2 != 200 || !strings.HasPrefix(ct1, tc.wantType) || ct1 != ct2 {
			t.Errorf("%s %s: status %d/%d type %q/%q; want 200, %q", tc.method, tc.path, c1, c2, ct1, ct2, tc.wantType)
		}
		if !bytes.Contains(b1, []byte(tc.wantSub)) {
			t.Errorf("%s %s planted: body %.200q; want it to contain %q", tc.method, tc.path, b1, tc.wantSub)
		}
		if !bytes.Equal(b1, b2) {
			t.Errorf("%s %s: planted and fixed bodies differ:\n%.300s\n%.300s", tc.method, tc.path, b1, b2)
		}
	}
}

func TestSearchFindsCaseInsensitive(t *testing.T) {
	a := newApp(false)
	var res searchResult
	rec := serve(t, a, "/search?q=sTeEl")
	if err := json.Unmarshal(rec, &res); err != nil {
		t.Fatal(err)
	}
	if res.Count < maxResults || len(res.Names) != maxResults {
		t.Fatalf("search steel: count %d names %d; want >= %d and %d", res.Count, len(res.Names), maxResults, maxResults)
	}
	for _, n := range res.Names {
		if !strings.Contains(strings.ToLower(n), "steel") {
			t.Errorf("result %q does not contain steel", n)
		}
	}
}

func TestRenderDecodesToSameImage(t *testing.T) {
	planted, fixed := startBoth(t)
	var imgs []image.Image
	for _, s := range []*Server{planted, fixed, fixed} { // the second fixed request is served from cache
		_, _, b := fetch(t, "GET", s.URL()+"/render", "")
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("decoding /render of %s: %v", s.URL(), err)
		}
		imgs = append(imgs, img)
	}
	for i, img := range imgs[1:] {
		if !sameImage(imgs[0], img) {
			t.Errorf("image %d differs from the planted build's", i+1)
		}
	}
	if b := imgs[0].Bounds(); b.Dx() != gridWidth || b.Dy() != gridHeight {
		t.Errorf("image is %v; want %dx%d", b, gridWidth, gridHeight)
	}
}

func sameImage(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return false
			}
		}
	}
	return true
}

func TestItemErrors(t *testing.T) {
	s, _ := startBoth(t)
	for path, want := range map[string]int{
		"/api/item?id=x": 400, "/api/item": 400, "/api/item?id=0": 404, "/api/item?id=51": 404,
		"/nope": 404, "/debug/pprof/": 404,
	} {
		if code, _, _ := fetch(t, "GET", s.URL()+path, ""); code != want {
			t.Errorf("GET %s: status %d; want %d", path, code, want)
		}
	}
}

func TestMixedCyclesEndpoints(t *testing.T) {
	s, _ := startBoth(t)
	seen := map[string]bool{}
	for range 8 {
		code, ct, b := fetch(t, "GET", s.URL()+"/", "")
		if code != 200 {
			t.Fatalf("GET /: status %d body %.200s", code, b)
		}
		kind := ct
		if ct == "application/json" {
			kind, _, _ = strings.Cut(string(b), ":") // the first JSON key
		}
		seen[kind] = true
	}
	if len(seen) != 4 {
		t.Errorf("GET / x8 served %d kinds of response (%v); want 4", len(seen), seen)
	}
}

func TestPprofOnOwnListener(t *testing.T) {
	s, _ := startBoth(t)
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/heap?debug=1", "/debug/pprof/cmdline"} {
		if code, _, b := fetch(t, "GET", s.PprofURL()+path, ""); code != 200 || len(b) == 0 {
			t.Errorf("GET pprof %s: status %d, %d bytes", path, code, len(b))
		}
	}
	if s.PprofURL() == s.URL() {
		t.Errorf("pprof shares the API listener %s", s.URL())
	}
}

func serve(t *testing.T, a *app, target string) []byte {
	t.Helper()
	rec := httptestRecorder(a, "GET", target)
	if rec.Code != 200 {
		t.Fatalf("GET %s: status %d", target, rec.Code)
	}
	return rec.Body.Bytes()
}
