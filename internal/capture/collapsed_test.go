package capture

import (
	"os"
	"strings"
	"testing"
)

func TestParseCollapsed(t *testing.T) {
	const in = `main;handle;encode 3
main;handle 2

garbage line without count
main;handle;encode 1
no count here x
<module> (app.py:12);serve (app.py:11);handler (lib/h.py:6) 4
<main> - app.rb:3;block in <main> - app.rb:4;work - /srv/w.rb:10 5
main;;leaf 1
trailing	7
`
	p, err := ParseCollapsed(strings.NewReader(in), 10_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatalf("invalid profile: %v", err)
	}
	got := stacks(p)
	want := map[string]int64{
		"encode<-handle<-main":          4,
		"handle<-main":                  2,
		"handler<-serve<-<module>":      4,
		"work<-block in <main><-<main>": 5,
		"leaf<-[unknown]<-main":         1,
		"trailing":                      7,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("stack %q: %d samples, want %d (all: %v)", k, got[k], v, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("stacks %v, want %v", got, want)
	}
	for _, s := range p.Sample {
		if s.Value[1] != s.Value[0]*10_000_000 {
			t.Errorf("sample %v: cpu %d, want count×period", s.Location, s.Value[1])
		}
	}
	for _, fn := range p.Function {
		if fn.Name == "handler" && fn.Filename != "lib/h.py" || fn.Name == "work" && fn.Filename != "/srv/w.rb" {
			t.Errorf("function %s file %q, want its source file", fn.Name, fn.Filename)
		}
	}
	if _, err := ParseCollapsed(strings.NewReader(in), 0); err == nil {
		t.Error("ParseCollapsed(period 0) = nil error, want one")
	}
}

// TestParseCollapsedPySpy parses real py-spy 0.4 --format raw output
// (testdata/collapsed/pyspy.txt, a json-encoding loop at 200 Hz for 1s).
func TestParseCollapsedPySpy(t *testing.T) {
	f, err := os.Open("testdata/collapsed/pyspy.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ParseCollapsed(f, 5_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if n := totalSamples(p.Sample); n < 100 || !hasFunction(p, "JSONEncoder.iterencode") {
		t.Errorf("py-spy profile: %d samples, JSONEncoder.iterencode found: %t; want ≥100 and true", n, hasFunction(p, "JSONEncoder.iterencode"))
	}
}

func FuzzParseCollapsed(f *testing.F) {
	if b, err := os.ReadFile("testdata/collapsed/pyspy.txt"); err == nil {
		// A few lines: small seeds keep the fuzzer's minimising fast.
		lines := strings.SplitAfterN(string(b), "\n", 4)
		f.Add([]byte(strings.Join(lines[:min(3, len(lines))], "")))
	}
	f.Add([]byte("a;b;c 12\n<main> - x.rb:1;f - y.rb:2 3\n"))
	f.Add([]byte("<main> - x.rb:1;(unknown) [c function] - (unknown);each [c function] - (unknown) 7\n"))
	f.Add([]byte("f (x.py:9223372036854775808) 9223372036854775807\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseCollapsed(strings.NewReader(string(data)), 10_000_000)
		if err != nil {
			return
		}
		if err := p.CheckValid(); err != nil {
			t.Fatalf("invalid profile from %q: %v", data, err)
		}
	})
}

// TestParseCollapsedRbSpy parses real rbspy 0.55 --format collapsed output
// of testdata/services/rbhot on Ruby 3.1, sampled with --nonblocking
// (testdata/collapsed/rbspy.txt): C functions come as "(unknown) [c
// function] - (unknown)" and become the pseudo frame "[c function]".
func TestParseCollapsedRbSpy(t *testing.T) {
	f, err := os.Open("testdata/collapsed/rbspy.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ParseCollapsed(f, 10_101_010)
	if err != nil {
		t.Fatal(err)
	}
	if n := totalSamples(p.Sample); n < 100 || !hasFunction(p, "block in initialize") || !hasFunction(p, "[c function]") {
		t.Errorf("rbspy profile: %d samples; want ≥100 with \"block in initialize\" and \"[c function]\"", n)
	}
	for _, fn := range p.Function {
		if strings.Contains(fn.Name, " - ") || strings.Contains(fn.Name, "(unknown)") {
			t.Errorf("function %q: rbspy's frame label was not split into name and file", fn.Name)
		}
		if fn.Name == "initialize" && !strings.HasSuffix(fn.Filename, "rbhot/server.rb") {
			t.Errorf("initialize in file %q; want rbhot/server.rb", fn.Filename)
		}
	}
	for _, c := range []struct{ in, name string }{
		{"(unknown) [c function] - (unknown)", "[c function]"},
		{"sort [c function] - (unknown)", "[c function] sort"},
		{"Foo::Bar#bar - /x/test.rb:12", "Foo::Bar#bar"},
	} {
		if got := parseCollapsedFrame(c.in); got.name != c.name {
			t.Errorf("parseCollapsedFrame(%q) = %q; want %q", c.in, got.name, c.name)
		}
	}
}
