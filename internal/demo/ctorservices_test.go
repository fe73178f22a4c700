package demo

// Smoke tests of the services of the constructor and allocation rules:
// gzipmw (a gzip.Writer made per response) and splitter (a document split
// per request beside a small error value). Both modes answer the same;
// buggy costs more CPU per request, measured side by side.

import (
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"

	"perflab/internal/labtest"
)

// gunzipped GETs url accepting gzip and returns the body it decompressed;
// the answer must be gzip-encoded.
func gunzipped(t *testing.T, url string) []byte {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("GET %s: status %d, Content-Encoding %q; want 200, gzip", url, resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return b
}

// TestServiceCtorModes: each service answers the same in both modes, and
// its planted cost makes buggy cost at least twice the CPU per request
// (the plant is several times that, so the bound holds on a busy machine).
func TestServiceCtorModes(t *testing.T) {
	for _, c := range []struct {
		name, path, want string
		get              func(*testing.T, string) []byte
	}{
		{"gzipmw", "/catalog?page=3", `"products":[{"sku":"SKU-000015"`, gunzipped},
		{"splitter", "/totals?doc=3&cols=a,b,c,d", `{"doc":3,"totals":{"a":503592,"b":504336,"c":505080,"d":505824}}`, get},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := labtest.BuildService(t, c.name)
			var bodies []string
			cpu := map[string]float64{}
			for _, mode := range []string{"buggy", "fixed"} {
				s := startService(t, append([]string{bin, "-mode=" + mode}, freePorts...)...)
				b := string(c.get(t, s.url+c.path))
				if !strings.Contains(b, c.want) {
					t.Errorf("%s %s %s: %.200q; want %q in it", c.name, mode, c.path, b, c.want)
				}
				bodies = append(bodies, b)
				for range 20 {
					c.get(t, s.url+c.path)
				}
				before := childCPU(t, s.cmd.Process.Pid)
				for range 200 {
					c.get(t, s.url+c.path)
				}
				cpu[mode] = float64(childCPU(t, s.cmd.Process.Pid)-before) / 200
				s.stop(t)
			}
			if bodies[0] != bodies[1] {
				t.Errorf("%s: buggy and fixed answer differently:\n%.200q\n%.200q", c.name, bodies[0], bodies[1])
			}
			t.Logf("%s CPU per request: buggy %.0f µs, fixed %.0f µs", c.name, cpu["buggy"]/1e3, cpu["fixed"]/1e3)
			if cpu["buggy"] < 2*cpu["fixed"] {
				t.Errorf("%s CPU per request: buggy %.0f µs, fixed %.0f µs; want buggy at least twice fixed", c.name, cpu["buggy"]/1e3, cpu["fixed"]/1e3)
			}
		})
	}
}
