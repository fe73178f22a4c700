package capture

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/pprof/profile"
)

// v8Seed is a V8 CPU profile of nodeinline (node --cpu-prof at 5 ms) over
// its start and forty requests: score runs on its own first, then inlined
// into summarize.
func v8Seed(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "v8profile", "nodeinline.cpuprofile"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// leafLines are the profile's samples per leaf "function:line".
func leafLines(p *profile.Profile) map[string]int64 {
	out := map[string]int64{}
	for _, s := range p.Sample {
		l := s.Location[0].Line[0]
		out[l.Function.Name+":"+itoa64(l.Line)] += s.Value[0]
	}
	return out
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
func TestParseV8ProfileLines(t *testing.T) {
	p, err := ParseV8Profile(v8Seed(t), 42, 5e6)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	got := leafLines(p)
	// summarize's node: 18 samples, and ticks on line 26 (10), 25 (1)
	// and 19 (4, score's line: score inlined into it), shared out in
	// proportion; score's own node: 2 samples on line 19.
	want := map[string]int64{"summarize:26": 12, "summarize:25": 1, "score:19": 5 + 2}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d samples; want %d (all: %v)", k, got[k], n, got)
		}
	}
	if got["summarize:22"] != 0 || got["summarize:19"] != 0 {
		t.Errorf("samples on summarize's declaration or score's line as summarize's: %v", got)
	}
	// score inlined is called from summarize, on summarize's declaration.
	for _, s := range p.Sample {
		if l := s.Location[0].Line[0]; l.Function.Name == "score" && len(s.Location) > 1 {
			if c := s.Location[1].Line[0]; c.Function.Name != "summarize" || c.Line != 22 || c.Function.Filename != "/srv/nodeinline/server.js" {
				t.Errorf("score's caller: %s %s:%d; want summarize /srv/nodeinline/server.js:22", c.Function.Name, c.Function.Filename, c.Line)
			}
		}
		if s.NumLabel["pid"][0] != 42 {
			t.Errorf("sample without pid 42: %v", s.NumLabel)
		}
	}
	for _, f := range p.Function {
		if f.Name == "(idle)" || f.Name == "(root)" {
			t.Errorf("pseudo-function %s in the profile", f.Name)
		}
	}
}

func TestParseV8ProfileRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"not json":      "{",
		"unknown node":  `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}}],"samples":[2],"timeDeltas":[1]}`,
		"deltas":        `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}}],"samples":[1],"timeDeltas":[]}`,
		"cycle":         `{"nodes":[{"id":1,"children":[2]},{"id":2,"children":[1]}],"samples":[1],"timeDeltas":[1]}`,
		"node twice":    `{"nodes":[{"id":1},{"id":1}]}`,
		"missing child": `{"nodes":[{"id":1,"children":[3]}]}`,
		"self child":    `{"nodes":[{"id":1,"children":[1]}]}`,
	} {
		if p, err := ParseV8Profile([]byte(in), 1, 1e6); err == nil {
			t.Errorf("%s: parsed into %d samples; want an error", name, len(p.Sample))
		}
	}
	if _, err := ParseV8Profile(v8Seed(t), 1, 0); err == nil {
		t.Error("period 0 parsed; want an error")
	}
}

func FuzzParseV8Profile(f *testing.F) {
	f.Add(v8Seed(f))
	f.Add([]byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},{"id":2,"callFrame":{"functionName":"f","url":"file:///a.js","lineNumber":4},"hitCount":2,"positionTicks":[{"line":7,"ticks":1},{"line":2,"ticks":5}]}],"startTime":0,"endTime":30,"samples":[2,2,1],"timeDeltas":[10,-5,10]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseV8Profile(data, 7, 1e6)
		if err != nil {
			return
		}
		if err := p.CheckValid(); err != nil {
			t.Fatalf("invalid profile: %v", err)
		}
		for _, s := range p.Sample {
			if s.Value[1] != s.Value[0]*1e6 {
				t.Fatalf("%d samples worth %d ns: want 1e6 each", s.Value[0], s.Value[1])
			}
		}
	})
}
