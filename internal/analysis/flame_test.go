package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

var dataRE = regexp.MustCompile(`(?s)<script type="application/json" id="flame-data">(.*?)</script>`)

// pageData extracts the embedded JSON of a flame graph page.
func pageData(t *testing.T, page []byte) *flameData {
	t.Helper()
	m := dataRE.FindSubmatch(page)
	if m == nil {
		t.Fatal("flame page has no flame-data script")
	}
	var d flameData
	if err := json.Unmarshal(m[1], &d); err != nil {
		t.Fatalf("decoding flame data: %v", err)
	}
	return &d
}

// folded rebuilds "root;a;b" -> self value (new side) from the node list,
// checking that no node is smaller than its children.
func folded(t *testing.T, d *flameData) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	i := 0
	var walk func(path string) int64
	walk = func(path string) int64 {
		o := i * d.Stride
		name, val, nc := d.Names[d.Nodes[o]], d.Nodes[o+1], d.Nodes[o+d.Stride-1]
		i++
		if path != "" {
			path += ";"
		}
		path += name
		var kids int64
		for k := int64(0); k < nc; k++ {
			kids += walk(path)
		}
		if kids > val {
			t.Errorf("flame node %s: children %d exceed value %d", path, kids, val)
		}
		if val > kids {
			out[path] = val - kids
		}
		return val
	}
	walk("")
	if i*d.Stride != len(d.Nodes) {
		t.Errorf("flame nodes: walked %d of %d", i, len(d.Nodes)/d.Stride)
	}
	return out
}

func TestFlameRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteFlameHTML(&buf, cpuProfile(t), FlameOptions{Title: "cpu <demo>", Requests: 10, MinFraction: -1}); err != nil {
		t.Fatal(err)
	}
	page := buf.Bytes()
	if !bytes.Contains(page, []byte("<title>cpu &lt;demo&gt;</title>")) {
		t.Error("title not escaped into the page")
	}
	if bytes.Contains(page, []byte("http://")) || bytes.Contains(page, []byte("https://")) {
		t.Error("flame page refers to the network")
	}
	if !bytes.Contains(page, []byte(`"user":[`)) {
		t.Error("user flags are not a JSON array of numbers")
	}
	d := pageData(t, page)
	if d.Title != "cpu <demo>" || d.Unit != "nanoseconds" || d.Requests != 10 || d.Pruned != 0 || d.Diff {
		t.Errorf("flame data header = %+v", d)
	}
	got := folded(t, d)
	want := map[string]int64{
		"root;runtime.goexit;net/http.(*conn).serve;main.handler;main.search":                                  100,
		"root;runtime.goexit;net/http.(*conn).serve;main.handler;main.search;strings.ToLower":                  100,
		"root;runtime.goexit;net/http.(*conn).serve;main.handler;main.search;strings.ToLower;runtime.mallocgc": 200,
		"root;runtime.goexit;net/http.(*conn).serve;main.handler;main.render":                                  50,
		"root;runtime.goexit;net/http.(*conn).serve;main.handler;main.render;fmt.Sprintf;fmt.(*pp).doPrintf":   400,
		"root;runtime.goexit;runtime.gcBgMarkWorker;runtime.gcDrain":                                           150,
	}
	if len(got) != len(want) {
		t.Errorf("folded stacks = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("folded[%s] = %d, want %d", k, got[k], v)
		}
	}
	var userNames []string
	for i, n := range d.Names {
		if d.User[i] == 1 {
			userNames = append(userNames, n)
		}
	}
	sort.Strings(userNames)
	if strings.Join(userNames, ",") != "main.handler,main.render,main.search" {
		t.Errorf("user names = %v", userNames)
	}
}

func TestFlamePruningKeepsTotals(t *testing.T) {
	var buf bytes.Buffer
	// 20% of 1000: runtime.gcBgMarkWorker (150) and its child go; their cost
	// stays in runtime.goexit's value.
	if err := WriteFlameHTML(&buf, cpuProfile(t), FlameOptions{MinFraction: 0.2}); err != nil {
		t.Fatal(err)
	}
	d := pageData(t, buf.Bytes())
	if d.Nodes[1] != 1000 {
		t.Errorf("root value after pruning = %d, want 1000", d.Nodes[1])
	}
	got := folded(t, d)
	var sum int64
	for k, v := range got {
		sum += v
		if strings.Contains(k, "gcBgMarkWorker") {
			t.Errorf("frame below the threshold survived: %s", k)
		}
	}
	if sum != 1000 {
		t.Errorf("self values after pruning sum to %d, want 1000", sum)
	}
	if d.Pruned != 1 || !bytes.Contains(buf.Bytes(), []byte("merged into their callers")) {
		t.Errorf("pruned = %d, want 1 (the call path of gcBgMarkWorker) and a note in the page", d.Pruned)
	}
}

func TestDiffFlame(t *testing.T) {
	base := build(t, []string{"cpu/nanoseconds"}, smp{"main.h;main.a", []int64{1000}}, smp{"main.h;main.b", []int64{1000}})
	new := build(t, []string{"cpu/nanoseconds"}, smp{"main.h;main.a", []int64{3000}}, smp{"main.h;main.c", []int64{1000}})
	var buf bytes.Buffer
	if err := WriteDiffFlameHTML(&buf, base, new, 10, 20, FlameOptions{MinFraction: -1}); err != nil {
		t.Fatal(err)
	}
	d := pageData(t, buf.Bytes())
	if !d.Diff || d.Stride != 4 || d.Requests != 20 || d.BaseRequests != 10 {
		t.Fatalf("diff header = %+v", d)
	}
	vals := map[string][2]int64{}
	for i := 0; i < len(d.Nodes); i += 4 {
		vals[d.Names[d.Nodes[i]]] = [2]int64{d.Nodes[i+1], d.Nodes[i+2]}
	}
	for name, want := range map[string][2]int64{"root": {4000, 2000}, "main.a": {3000, 1000}, "main.b": {0, 1000}, "main.c": {1000, 0}} {
		if vals[name] != want {
			t.Errorf("diff node %s = %v, want new/base %v", name, vals[name], want)
		}
	}
	// Gains first (main.b: 100/request to 0), then losses by size (main.a:
	// 100 to 150, main.c: 0 to 50, equal: either order).
	var changes []string
	for i := 0; i+2 < len(d.Changes); i += 3 {
		changes = append(changes, fmt.Sprintf("%s %d %d", d.Names[d.Changes[i]], d.Changes[i+1], d.Changes[i+2]))
	}
	if len(changes) != 3 || changes[0] != "main.b 0 1000" || !slices.Contains(changes, "main.a 3000 1000") || !slices.Contains(changes, "main.c 1000 0") {
		t.Errorf("diff changes = %q, want main.b's gain then the losses of main.a and main.c", changes)
	}
}

// TestFlameKeepsOnlyDrawnNames checks that a pruned page carries the names
// of the frames it draws, not every function of the profile.
func TestFlameKeepsOnlyDrawnNames(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteFlameHTML(&buf, synthProfile(20000, 4000), FlameOptions{MinFraction: 0.01}); err != nil {
		t.Fatal(err)
	}
	d := pageData(t, buf.Bytes())
	used := map[int64]bool{}
	for i := 0; i < len(d.Nodes); i += d.Stride {
		used[d.Nodes[i]] = true
	}
	if len(used) != len(d.Names) || len(d.User) != len(d.Names) {
		t.Errorf("page has %d names (%d user flags) for %d drawn names", len(d.Names), len(d.User), len(used))
	}
	if d.Pruned == 0 {
		t.Error("1% pruning of 4000 stacks pruned nothing")
	}
	folded(t, d) // no node smaller than its children
}

// TestFlameRendersInChromium loads flame graphs of a large synthetic profile
// in headless Chromium, with a search in the URL, and checks that frames
// were drawn (the page sets data-frames on <body> after drawing) and the
// search matched.
func TestFlameRendersInChromium(t *testing.T) {
	bin := labtest.NeedTool(t, "chromium", "")
	big := synthProfile(50000, 5000)
	for name, write := range map[string]func(*bytes.Buffer) error{
		"flame": func(b *bytes.Buffer) error {
			return WriteFlameHTML(b, big, FlameOptions{Requests: 100})
		},
		"diff": func(b *bytes.Buffer) error {
			return WriteDiffFlameHTML(b, cpuProfile(t), big, 10, 100, FlameOptions{})
		},
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := write(&buf); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			file := filepath.Join(dir, name+".html")
			if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			dom := dumpDOM(t, bin, dir, "file://"+file+"#search=runtime")
			if !regexp.MustCompile(`id="match">matched: [1-9]`).MatchString(dom) {
				t.Errorf("search for runtime functions matched nothing; DOM:\n%.3000s", dom)
			}
			m := regexp.MustCompile(`data-frames="(\d+)"`).FindStringSubmatch(dom)
			if m == nil {
				t.Fatalf("page did not draw (no data-frames on body); DOM:\n%.2000s", dom)
			}
			if n, _ := strconv.Atoi(m[1]); n < 5 {
				t.Errorf("page drew %d frames, want at least 5", n)
			}
		})
	}
}

func dumpDOM(t *testing.T, bin, dir, url string) string {
	t.Helper()
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--window-size=1400,900", "--virtual-time-budget=2000", "--dump-dom", url)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Start(); err != nil {
		t.Skipf("starting chromium: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium: %v\n%s", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("chromium did not finish in 60s\n%s", stderr.String())
	}
	return out.String()
}

// TestFlameOfAnIdleProfile checks that a profile without samples gives a
// page that says so rather than a blank graph.
func TestFlameOfAnIdleProfile(t *testing.T) {
	p := cpuProfile(t)
	p.Sample = nil
	var buf bytes.Buffer
	if err := WriteFlameHTML(&buf, p, FlameOptions{Requests: 10}); err != nil {
		t.Fatal(err)
	}
	d := pageData(t, buf.Bytes())
	if len(d.Nodes) != 3 || d.Nodes[1] != 0 {
		t.Errorf("idle profile's nodes = %v, want the root alone, empty", d.Nodes)
	}
	if !bytes.Contains(buf.Bytes(), []byte("This profile has no samples")) {
		t.Error("the page of an idle profile does not say it has no samples")
	}
}

// TestOffCPUFlameTellsRunnableFromTheRead: a goroutine's network read and
// the wait for a CPU after it, at the same stack: the off-CPU flame graph
// draws them as two leaves under the read, each its own time, and the
// running time not at all.
func TestOffCPUFlameTellsRunnableFromTheRead(t *testing.T) {
	read := "main.handle;main.fetch;internal/poll.(*FD).Read"
	wall := labtest.NewWall(t).
		Add(read, runfmt.WaitDownstream, 6e6).
		Add(read, runfmt.WaitRunnable, 2e6).
		Add("main.handle;main.render", runfmt.WaitCPU, 5e6).
		Profile()
	var buf bytes.Buffer
	opt := FlameOptions{SampleIndex: runfmt.OffCPUSample, MinFraction: -1, Leaves: OffCPULeaves()}
	if err := WriteFlameHTML(&buf, wall, opt); err != nil {
		t.Fatal(err)
	}
	got := folded(t, pageData(t, buf.Bytes()))
	want := map[string]int64{
		"root;main.handle;main.fetch;internal/poll.(*FD).Read;[network]":                     6e6,
		"root;main.handle;main.fetch;internal/poll.(*FD).Read;[runnable: waiting for a CPU]": 2e6,
	}
	if !maps.Equal(got, want) {
		t.Errorf("off-CPU flame graph %v; want %v", got, want)
	}
}
