package capture

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// nodeinlineSource reads nodeinline's server.js for the seed's URL, the
// file the seed profile was taken of.
func nodeinlineSource(url string) ([]byte, error) {
	if url != "file:///srv/nodeinline/server.js" {
		return nil, errors.New("not nodeinline")
	}
	return os.ReadFile(filepath.Join("..", "..", "testdata", "services", "nodeinline", "server.js"))
}

// TestParseV8ProfileCallLines: with the script's source, a caller is on
// the line of its call: summarize calls score on its loop's line 26 (in
// the samples of score's own node and of score inlined into summarize),
// the request handler calls summarize on line 47; the samples on
// summarize's own lines stay as they were.
func TestParseV8ProfileCallLines(t *testing.T) {
	p, err := ParseV8ProfileOptions(v8Seed(t), V8Options{PID: 42, PeriodNanos: 5e6, Source: nodeinlineSource})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	callers := map[string]map[string]int64{} // callee -> "caller:line" -> samples
	for _, s := range p.Sample {
		for i := 0; i+1 < len(s.Location); i++ {
			callee, caller := s.Location[i].Line[0], s.Location[i+1].Line[0]
			if callers[callee.Function.Name] == nil {
				callers[callee.Function.Name] = map[string]int64{}
			}
			callers[callee.Function.Name][caller.Function.Name+":"+itoa64(caller.Line)] += s.Value[0]
		}
	}
	if c := callers["score"]; len(c) != 1 || c["summarize:26"] != 5+2 {
		t.Errorf("score's callers %v; want summarize:26 in its 7 samples", c)
	}
	if c := callers["summarize"]; len(c) != 1 || c["(anonymous):47"] == 0 {
		t.Errorf("summarize's callers %v; want the request handler on line 47 only", c)
	}
	got := leafLines(p)
	for k, n := range map[string]int64{"summarize:26": 12, "summarize:25": 1, "score:19": 5 + 2} {
		if got[k] != n {
			t.Errorf("%s: %d samples; want %d (all: %v)", k, got[k], n, got)
		}
	}
}

// TestParseV8ProfileForeignInlined: samples a function took on lines
// beyond its script's end (code of another script V8 inlined into it,
// crypto's Hash.update) are on the one line that makes its calls, not on
// lines its file does not have.
func TestParseV8ProfileForeignInlined(t *testing.T) {
	const src = "'use strict';\nconst crypto = require('crypto');\nfunction handleHash() {\n  let out = '';\n" +
		"  for (let i = 0; i < 200; i++) {\n    out = crypto.createHash('sha256').update(out + i).digest('hex');\n  }\n  return out;\n}\n"
	const prof = `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},
{"id":2,"callFrame":{"functionName":"handleHash","url":"file:///srv/h.js","lineNumber":2,"columnNumber":19},"hitCount":6,
 "positionTicks":[{"line":144,"ticks":3},{"line":5,"ticks":1},{"line":6,"ticks":2}],"children":[3,4]},
{"id":3,"callFrame":{"functionName":"update","url":"node:internal/crypto/hash","lineNumber":131,"columnNumber":39},"hitCount":2,"positionTicks":[{"line":144,"ticks":2}]},
{"id":4,"callFrame":{"functionName":"digest","url":"node:internal/crypto/hash","lineNumber":149,"columnNumber":39},"hitCount":1}],
"samples":[2,2,2,2,2,2,3,3,4],"timeDeltas":[1,1,1,1,1,1,1,1,1]}`
	read := func(url string) ([]byte, error) {
		if url == "file:///srv/h.js" {
			return []byte(src), nil
		}
		return nil, errors.New("no source")
	}
	p, err := ParseV8ProfileOptions([]byte(prof), V8Options{PID: 1, PeriodNanos: 1e6, Source: read})
	if err != nil {
		t.Fatal(err)
	}
	got := leafLines(p)
	if got["handleHash:6"] != 5 || got["handleHash:5"] != 1 || got["handleHash:144"] != 0 {
		t.Errorf("handleHash's leaf lines %v; want line 6 for its own and its inlined foreign samples (5), line 5 (1)", got)
	}
	for _, s := range p.Sample {
		if l := s.Location[0].Line[0]; l.Function.Name != "handleHash" && s.Location[1].Line[0].Line != 6 {
			t.Errorf("%s called from handleHash:%d; want line 6", l.Function.Name, s.Location[1].Line[0].Line)
		}
	}
	// Without the source, the lines are as V8 gave them.
	p, err = ParseV8Profile([]byte(prof), 1, 1e6)
	if err != nil {
		t.Fatal(err)
	}
	if got := leafLines(p); got["handleHash:144"] != 3 {
		t.Errorf("without the source: %v; want V8's line 144 kept", got)
	}
}

// jsPosOf is the 0-based line and column (UTF-16 units) of the first
// occurrence of mark in src.
func jsPosOf(t *testing.T, src, mark string) (int64, int64) {
	t.Helper()
	i := strings.Index(src, mark)
	if i < 0 {
		t.Fatalf("%q not in the source", mark)
	}
	line := int64(strings.Count(src[:i], "\n"))
	start := strings.LastIndexByte(src[:i], '\n') + 1
	col := int64(0)
	for _, r := range src[start:i] {
		col++
		if r > 0xFFFF {
			col++
		}
	}
	return line, col
}

func TestJSFunctionExtentAndCalls(t *testing.T) {
	const src = `'use strict';
const re = /fetch\(x\)/g; // fetch( in a comment
function handler(req, res) {
  const s = "fetch(";
  const t = ` + "`${fetch(req)} {`" + `;
  if (/}/.test(s)) { log('x'); }
  items.map((x) => score(x));
  return send(res);
}
const arrow = (a) => fetch(a, { b: 1 }),
  other = 1;
const one = x => x * 2;
class Svc {
  run(n) { return work(n) + work(n + 1); }
  get size() { return 1; }
}
function nested() {
  function helper() { return 2; }
  return [1].map(helper);
}
const wide = '\u00e9✓𝄞'; function after𝄞() { return fetch(); }
`
	type ext struct {
		mark        string
		first, last int64
	}
	s := newJSScript([]byte(src))
	for _, tc := range []ext{
		{"(req, res)", 3, 9},
		{"(a) => fetch", 10, 10},
		{"x => x * 2", 12, 12},
		{"(n) { return work", 14, 14},
		{"() { return 2", 18, 18},
	} {
		line, col := jsPosOf(t, src, tc.mark)
		r, ok := s.function(line, col)
		if !ok {
			t.Errorf("%q: no function", tc.mark)
			continue
		}
		if first, last := s.span(r); first != tc.first || last != tc.last {
			t.Errorf("%q: lines %d-%d; want %d-%d", tc.mark, first, last, tc.first, tc.last)
		}
	}
	if _, ok := s.function(jsPosOf(t, src, `"fetch("`)); ok {
		t.Error("a string taken for a function's start")
	}
	handler, _ := s.function(jsPosOf(t, src, "(req, res)"))
	for name, want := range map[string][]int64{
		"fetch": {5},    // in a template's substitution, not in the regexp, string or comment
		"log":   {6},    // after a regular expression holding a brace
		"score": {7},    // in a callback written inside
		"send":  {8},    // its last line
		"res":   {3, 8}, // no call: the lines that name it
		"nope":  nil,
	} {
		if got := s.callLines(handler, name); !slices.Equal(got, want) {
			t.Errorf("calls of %s in handler: %v; want %v", name, got, want)
		}
	}
	run, _ := s.function(jsPosOf(t, src, "(n) { return work"))
	if got := s.callLines(run, "work"); !slices.Equal(got, []int64{14}) {
		t.Errorf("calls of work in run: %v; want [14]", got)
	}
	nested, _ := s.function(jsPosOf(t, src, "() {\n  function helper"))
	if got := s.callLines(nested, "helper"); !slices.Equal(got, []int64{19}) {
		t.Errorf("helper in nested: %v; want line 19 (passed by name; its declaration is no call)", got)
	}
	after, ok := s.function(jsPosOf(t, src, "() { return fetch(); }"))
	if first, _ := s.span(after); !ok || first != 21 {
		t.Errorf("a function after characters of two and four bytes: %v %d; want line 21", ok, first)
	}
	if r, ok := s.function(0, 0); !ok || r.first != 0 || r.last != len(s.toks)-1 {
		t.Errorf("the module's own function: %+v %v; want the whole script", r, ok)
	}
}

func FuzzJSScript(f *testing.F) {
	f.Add([]byte("function f(a) { return g(a) + `${h(1)}`; }"), int64(0), int64(10), "g")
	f.Add([]byte("const x = (a) => /re}/.test(a) ? b(a) : c;\n"), int64(0), int64(10), "b")
	f.Add([]byte("a = `${`${`"), int64(0), int64(0), "a")
	f.Fuzz(func(t *testing.T, src []byte, line, col int64, name string) {
		s := newJSScript(src)
		if len(s.toks) != len(s.punct) {
			t.Fatalf("%d tokens, %d punctuation entries", len(s.toks), len(s.punct))
		}
		for i := 1; i < len(s.toks); i++ {
			if s.toks[i].off <= s.toks[i-1].off || s.toks[i].off >= len(src) {
				t.Fatalf("token %d at %d after %d (source of %d bytes)", i, s.toks[i].off, s.toks[i-1].off, len(src))
			}
		}
		for _, fn := range s.named() {
			if fn.r.first > fn.r.last || fn.r.last >= len(s.toks) || fn.name == "" {
				t.Fatalf("named function %+v of %d tokens", fn, len(s.toks))
			}
		}
		if fn, ok := s.enclosing(line); ok {
			if first, last := s.span(fn.r); line < first || line > last {
				t.Fatalf("line %d in %s, lines %d-%d", line, fn.name, first, last)
			}
		}
		r, ok := s.function(line, col)
		if !ok {
			return
		}
		if r.first > r.last || r.last >= len(s.toks) {
			t.Fatalf("extent %+v of %d tokens", r, len(s.toks))
		}
		first, last := s.span(r)
		for _, l := range s.callLines(r, name) {
			if l < first || l > last {
				t.Fatalf("call on line %d outside the function's lines %d-%d", l, first, last)
			}
		}
	})
}

func FuzzParseV8ProfileSource(f *testing.F) {
	src, err := nodeinlineSource("file:///srv/nodeinline/server.js")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(v8Seed(f), src)
	f.Add([]byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},{"id":2,"callFrame":{"functionName":"f","url":"file:///a.js","lineNumber":0,"columnNumber":10},"hitCount":2,"positionTicks":[{"line":7,"ticks":1},{"line":2,"ticks":5}],"children":[3]},{"id":3,"callFrame":{"functionName":"g","url":"file:///a.js","lineNumber":1,"columnNumber":10}}],"samples":[2,3,1],"timeDeltas":[10,5,10]}`),
		[]byte("function f(a) {\n  return g(a) + g(1);\n}\nfunction g(b) { return b; }\n"))
	f.Fuzz(func(t *testing.T, data, src []byte) {
		p, err := ParseV8ProfileOptions(data, V8Options{PID: 7, PeriodNanos: 1e6, Source: func(string) ([]byte, error) { return src, nil }})
		if err != nil {
			return
		}
		if err := p.CheckValid(); err != nil {
			t.Fatalf("invalid profile: %v", err)
		}
		plain, err := ParseV8Profile(data, 7, 1e6)
		if err != nil || len(plain.Sample) != len(p.Sample) {
			t.Fatalf("with the source %d samples, without %d (%v)", len(p.Sample), len(plain.Sample), err)
		}
	})
}

// TestParseV8ProfileInlinedWithoutNode: score, inlined into summarize
// before the window, has no node of its own: summarize's samples on
// score's line are score's, called from summarize's line 26, not
// summarize's on its declaration.
func TestParseV8ProfileInlinedWithoutNode(t *testing.T) {
	const prof = `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},
{"id":2,"callFrame":{"functionName":"","url":"file:///srv/nodeinline/server.js","lineNumber":44,"columnNumber":33},"children":[3]},
{"id":3,"callFrame":{"functionName":"summarize","url":"file:///srv/nodeinline/server.js","lineNumber":21,"columnNumber":18},"hitCount":6,
 "positionTicks":[{"line":19,"ticks":2},{"line":26,"ticks":4}]}],
"samples":[3,3,3,3,3,3],"timeDeltas":[1,1,1,1,1,1]}`
	p, err := ParseV8ProfileOptions([]byte(prof), V8Options{PID: 1, PeriodNanos: 1e6, Source: nodeinlineSource})
	if err != nil {
		t.Fatal(err)
	}
	if got := leafLines(p); got["score:19"] != 2 || got["summarize:26"] != 4 || got["summarize:22"] != 0 {
		t.Errorf("leaf lines %v; want score:19 2, summarize:26 4", got)
	}
	for _, s := range p.Sample {
		if l := s.Location[0].Line[0]; l.Function.Name == "score" {
			if c := s.Location[1].Line[0]; c.Function.Name != "summarize" || c.Line != 26 {
				t.Errorf("score called from %s:%d; want summarize:26", c.Function.Name, c.Line)
			}
		}
	}
}

func TestJSNamedFunctions(t *testing.T) {
	const src = `function a(x) { return b(x); }
const b = (y) => y + 1, c = z => z * 2;
obj.d = async function (w) { await w; };
const o = { e: function () {}, f(v) { return v; }, g: () => 1 };
class K { static h(u) { if (u) { return u; } } get i() { return 1; } }
foo(bar) ; if (x) { y(); }
`
	s := newJSScript([]byte(src))
	var got []string
	for _, f := range s.named() {
		first, last := s.span(f.r)
		got = append(got, f.name+":"+itoa64(first)+"-"+itoa64(last))
	}
	want := []string{"a:1-1", "b:2-2", "c:2-2", "d:3-3", "e:4-4", "f:4-4", "g:4-4", "h:5-5", "i:5-5"}
	if !slices.Equal(got, want) {
		t.Errorf("named functions %v; want %v", got, want)
	}
	if f, ok := s.enclosing(5); !ok || f.name != "i" && f.name != "h" {
		t.Errorf("the function holding line 5: %+v %v", f, ok)
	}
}
