package demo

// Smoke tests of the services whose time goes to a peer, a timer or the
// network: grpcapi and its gRPC upstream grpccache, javanagle (the JDK
// HttpServer's Nagle stall) and sleepy with a 50 ms sleep. They check the
// answers in both modes and that the planted behaviour is there, comparing
// the modes side by side.

import (
	"bytes"
	"image/png"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// TestServiceGrpcapi checks that grpcapi answers the cache's image in both
// modes, that buggy prints each answer through protobuf's text format and
// fixed prints none, and that buggy costs at least twice the CPU per
// request (the plant is several times that, so the bound holds on a busy
// machine).
func TestServiceGrpcapi(t *testing.T) {
	const n = 60
	cache := startKept(t, "", true, append([]string{moreServices.Binary(t, "grpccache")}, freePorts...)...)
	upstream, ok := strings.CutPrefix(cache.url, "grpc://")
	if !ok {
		t.Fatalf("grpccache listens on %q; want grpc://HOST:PORT", cache.url)
	}
	var images [][]byte
	cpu := map[string]time.Duration{}
	for _, mode := range []string{"buggy", "fixed"} {
		api := startKept(t, "", true, append([]string{moreServices.Binary(t, "grpcapi"), "-mode=" + mode, "-upstream", upstream}, freePorts...)...)
		images = append(images, get(t, api.url+"/image?name=3")) // and the connection to the cache is up
		before := childCPU(t, api.cmd.Process.Pid)
		for i := range n {
			get(t, api.url+"/image?name="+strconv.Itoa(i%16))
		}
		cpu[mode] = (childCPU(t, api.cmd.Process.Pid) - before) / n
		if code, _, b := fetch(t, "GET", api.url+"/image?name=99", ""); code != 404 {
			t.Errorf("grpcapi %s /image?name=99: %d %q; want 404", mode, code, b)
		}
		if code, _, _ := fetch(t, "GET", api.url+"/image", ""); code != 400 {
			t.Errorf("grpcapi %s /image without a name: %d; want 400", mode, code)
		}
		if code := api.stop(t); code != 0 {
			t.Errorf("grpcapi %s exit code %d after SIGTERM; stderr: %s", mode, code, api.stderr)
		}
		if calls, _ := waitsLine(t, api.out, "upstream calls"); calls != n+2 {
			t.Errorf("grpcapi %s: %d upstream calls; want %d", mode, calls, n+2)
		}
		// protobuf's text format escapes the PNG signature's first byte.
		printed := strings.Count(api.out.String(), `\x89PNG`)
		if want := map[string]int{"buggy": n + 1, "fixed": 0}[mode]; printed != want {
			t.Errorf("grpcapi %s printed %d images; want %d", mode, printed, want)
		}
	}
	if !bytes.Equal(images[0], images[1]) {
		t.Errorf("grpcapi: buggy and fixed answer different images (%d and %d bytes)", len(images[0]), len(images[1]))
	}
	img, err := png.Decode(bytes.NewReader(images[0]))
	if err != nil || img.Bounds().Dx() != 100 || len(images[0]) < 20<<10 || len(images[0]) > 50<<10 {
		t.Errorf("grpcapi /image?name=3: %d bytes, PNG decoding: %v; want a 100-pixel-wide PNG of 20-50 KiB", len(images[0]), err)
	}
	t.Logf("grpcapi CPU per request: buggy %v, fixed %v", cpu["buggy"], cpu["fixed"])
	if cpu["buggy"] < 2*cpu["fixed"] {
		t.Errorf("grpcapi CPU per request: buggy %v, fixed %v; want buggy at least twice fixed", cpu["buggy"], cpu["fixed"])
	}
	if code := cache.stop(t); code != 0 {
		t.Errorf("grpccache exit code %d after SIGTERM; stderr: %s", code, cache.stderr)
	}
	if answers, _ := waitsLine(t, cache.out, "cache answers"); answers != 2*(n+2) {
		t.Errorf("grpccache answered %d calls; want %d", answers, 2*(n+2))
	}
}

// TestServiceGrpcapiSlowUpstream checks that grpccache -delay 30ms makes
// each of grpcapi's calls wait at least 30 ms, as both measure it.
func TestServiceGrpcapiSlowUpstream(t *testing.T) {
	const n, delay = 5, 30.0
	cache := startKept(t, "", true, append([]string{moreServices.Binary(t, "grpccache"), "-delay=30ms"}, freePorts...)...)
	api := startKept(t, "", true, append([]string{moreServices.Binary(t, "grpcapi"), "-mode=fixed", "-upstream", strings.TrimPrefix(cache.url, "grpc://")}, freePorts...)...)
	for range n {
		get(t, api.url+"/image?name=0")
	}
	api.stop(t)
	cache.stop(t)
	if calls, mean := waitsLine(t, api.out, "upstream calls"); calls != n || mean < delay {
		t.Errorf("grpcapi: %d upstream calls, mean %.2f ms; want %d of at least %.0f ms", calls, mean, n, delay)
	}
	if answers, mean := waitsLine(t, cache.out, "cache answers"); answers != n || mean < delay {
		t.Errorf("grpccache: %d answers, mean %.2f ms; want %d of at least %.0f ms", answers, mean, n, delay)
	}
}

// TestServiceJavanagle checks that the JDK HttpServer with its default
// settings answers each request after the client's delayed ACK (a median
// of at least 30 ms), and without it under
// -Dsun.net.httpserver.nodelay=true or --mode fixed (under 10 ms). Each
// JVM runs Server.java with the single-file source launcher.
func TestServiceJavanagle(t *testing.T) {
	java := labtest.NeedTool(t, "java", "")
	dir, err := filepath.Abs("../../testdata/services/javanagle")
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"sku":1234,"price":"25.46 EUR"}` + "\n"
	medians := map[string]time.Duration{}
	for _, v := range []struct {
		name string
		args []string
	}{
		{"default", []string{java, "Server.java"}},
		{"nodelay", []string{java, "-Dsun.net.httpserver.nodelay=true", "Server.java"}},
		{"fixed", []string{java, "Server.java", "--mode", "fixed"}},
	} {
		p := startKept(t, dir, false, append(v.args, "--addr", "127.0.0.1:0")...)
		if b := get(t, p.url+"/price?sku=1234"); string(b) != want {
			t.Errorf("javanagle %s /price?sku=1234: %q; want %q", v.name, b, want)
		}
		if code, _, b := fetch(t, "GET", p.url+"/price?sku=x", ""); code != 400 {
			t.Errorf("javanagle %s /price?sku=x: %d %q; want 400", v.name, code, b)
		}
		medians[v.name] = medianGet(t, p.url+"/price?sku=1234", 5, 21)
		p.stop(t) // the JVM exits 143 on SIGTERM
	}
	t.Logf("javanagle median per request: %v", medians)
	if medians["default"] < 30*time.Millisecond {
		t.Errorf("javanagle with Nagle on: median %v per request; want the delayed ACK's stall, at least 30ms", medians["default"])
	}
	for _, name := range []string{"nodelay", "fixed"} {
		if medians[name] >= 10*time.Millisecond {
			t.Errorf("javanagle %s: median %v per request; want under 10ms, without the stall", name, medians[name])
		}
	}
}

// medianGet GETs url warm times, then n times on the same keep-alive
// connection, and returns the median time of those n.
func medianGet(t *testing.T, url string, warm, n int) time.Duration {
	t.Helper()
	for range warm {
		get(t, url)
	}
	took := make([]time.Duration, n)
	for i := range took {
		start := time.Now()
		get(t, url)
		took[i] = time.Since(start)
	}
	slices.Sort(took)
	return took[n/2]
}

// TestServiceSleepy50ms checks that sleepy -sleep 50ms sleeps 50 ms per
// request in buggy mode, as its own stopwatch measures, and not in fixed.
func TestServiceSleepy50ms(t *testing.T) {
	const n = 5
	for _, mode := range []string{"buggy", "fixed"} {
		p := startKept(t, "", true, append([]string{serviceBinary(t, "sleepy"), "-mode=" + mode, "-sleep=50ms"}, freePorts...)...)
		for range n {
			start := time.Now()
			if b := get(t, p.url+"/"); string(b) != "ok\n" {
				t.Errorf("sleepy %s: %q", mode, b)
			}
			if took := time.Since(start); mode == "buggy" && took < 50*time.Millisecond {
				t.Errorf("sleepy buggy: a request took %v; want at least the 50ms sleep", took)
			}
		}
		p.stop(t)
		sleeps, mean := waitsLine(t, p.out, "sleeps")
		if mode == "buggy" && (sleeps != n || mean < 50) {
			t.Errorf("sleepy buggy: %d sleeps, mean %.2f ms; want %d of at least 50 ms", sleeps, mean, n)
		}
		if mode == "fixed" && sleeps != 0 {
			t.Errorf("sleepy fixed: %d sleeps; want none", sleeps)
		}
	}
}
