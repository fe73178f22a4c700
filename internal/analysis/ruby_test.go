package analysis

import (
	"strings"
	"testing"
)

// rubyProfile is rbhot's shape as rbspy samples it on Ruby 3.1: the Mash
// conversion recurses through Hash#each (a C function rbspy cannot name
// without pausing the process) and the block inside initialize.
func rubyProfile(t *testing.T) []smp {
	return []smp{
		{"<main>;serve;route;price;initialize;[c function];block in initialize;[c function]", []int64{1, 400}},
		{"<main>;serve;route;price;initialize;[c function];block in initialize;[c function];initialize;[c function];block in initialize", []int64{1, 300}},
		{"<main>;serve;route;price;initialize", []int64{1, 100}},
		{"<main>;serve;route;price;[c function]", []int64{1, 50}},
		{"<main>;serve;[c function]", []int64{1, 150}},
	}
}

func TestRubyBlocksAreChargedToTheirMethod(t *testing.T) {
	p := build(t, []string{"samples/count", "cpu/nanoseconds"}, rubyProfile(t)...)
	for _, f := range p.Function {
		if !strings.HasPrefix(f.Name, "[") {
			f.Filename = "/srv/app/server.rb"
		}
	}
	hot := Hot(p, 1, 3)
	if len(hot) == 0 || hot[0].Function != "initialize" || !near(hot[0].CPUUsPerRequest+hot[0].AttributedUsReq, 0.8) {
		t.Fatalf("Hot = %+v; want initialize first with all 800ns of it and its blocks", hot)
	}
	for _, h := range hot {
		if h.Function == "block in initialize" && h.CPUUsPerRequest+h.AttributedUsReq > 0 {
			t.Errorf("block in initialize charged %+v; want its cost on initialize", h)
		}
	}
	for _, c := range []struct{ name, file, want string }{
		{"block in initialize", "a.rb", "initialize"},
		{"block (2 levels) in Foo#bar", "a.rb", "Foo#bar"},
		{"rescue in call", "a.rb", "call"},
		{"block in initialize", "a.py", ""},
		{"blocking in x", "a.rb", ""},
		{"initialize", "a.rb", ""},
	} {
		if got := rubyBlockMethod(c.name, c.file); got != c.want {
			t.Errorf("rubyBlockMethod(%q, %q) = %q; want %q", c.name, c.file, got, c.want)
		}
	}
}

// A proc called after its method returned has no method above it: the
// block keeps its own cost.
func TestRubyBlockWithoutItsMethodKeepsItsCost(t *testing.T) {
	p := build(t, []string{"samples/count", "cpu/nanoseconds"},
		smp{"<main>;run;[c function];block in setup", []int64{1, 100}})
	for _, f := range p.Function {
		f.Filename = "/srv/app/jobs.rb"
	}
	if hot := Hot(p, 1, 1); len(hot) == 0 || hot[0].Function != "block in setup" {
		t.Errorf("Hot = %+v; want block in setup", hot)
	}
}
