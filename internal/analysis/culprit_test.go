package analysis

import (
	"testing"

	"github.com/google/pprof/profile"
)

// scriptProfile is a node service's CPU profile: express's router, an
// "(anonymous)" function of node_modules/express/lib/router/index.js at
// line 280, calls the app's own "(anonymous)" handler of app.js, whose
// line 12 calls digest (line 20, 10 samples) and line 13 node's JSON
// encoder (10 samples).
func scriptProfile() *profile.Profile {
	fns := map[string]*profile.Function{}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}},
		PeriodType: &profile.ValueType{Type: "samples", Unit: "count"}, Period: 1,
	}
	loc := func(name, file string, line int64) *profile.Location {
		f := fns[name+file]
		if f == nil {
			f = &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, Filename: file}
			fns[name+file] = f
			p.Function = append(p.Function, f)
		}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f, Line: line}}}
		p.Location = append(p.Location, l)
		return l
	}
	router := loc("(anonymous)", "/srv/node_modules/express/lib/router/index.js", 280)
	handler := loc("(anonymous)", "/srv/app.js", 12)
	handlerJSON := loc("(anonymous)", "/srv/app.js", 13)
	digest := loc("digest", "/srv/app.js", 20)
	stringify := loc("serializeJSON", "node:internal/json", 7)
	p.Sample = []*profile.Sample{
		{Location: []*profile.Location{digest, handler, router}, Value: []int64{10}},
		{Location: []*profile.Location{stringify, handlerJSON, router}, Value: []int64{10}},
	}
	return p
}

// TestCulpritLinesOfAScriptFunctionStayInItsFile: the lines of app.js's
// "(anonymous)" are app.js's, not the line of express's "(anonymous)"
// that called it, though both have one name.
func TestCulpritLinesOfAScriptFunctionStayInItsFile(t *testing.T) {
	got := CulpritLines(scriptProfile(), []LineRequest{{Function: "(anonymous)", File: "/srv/app.js", UsPerRequest: 100}}, nil, UserCode{})[0]
	if len(got) != 2 || got[0].File != "/srv/app.js" || got[0].Line != 12 || got[0].Pct != 50 || got[1].Line != 13 {
		t.Errorf("lines %+v; want app.js:12 and :13 at 50%% each", got)
	}
	all := CulpritLines(scriptProfile(), []LineRequest{{Function: "(anonymous)", UsPerRequest: 100}}, nil, UserCode{})[0]
	if len(all) != 1 || all[0].Line != 280 {
		t.Errorf("without a file, lines %+v; want every file's (anonymous), the outermost at index.js:280", all)
	}
}

// TestCulpritLinesOfTheCostAFunctionOwns: the lines of the cost app.js's
// "(anonymous)" owns (its self+called figure) leave out digest's, user
// code of its own: line 13, the JSON encoding, holds all of it.
func TestCulpritLinesOfTheCostAFunctionOwns(t *testing.T) {
	got := CulpritLines(scriptProfile(), []LineRequest{{Function: "(anonymous)", File: "/srv/app.js", Own: true, UsPerRequest: 50}}, nil, UserCode{})[0]
	if len(got) != 1 || got[0].Line != 13 || got[0].Pct != 100 || got[0].CostUsPerRequest != 50 {
		t.Errorf("own lines %+v; want app.js:13 at 100%%, 50 µs", got)
	}
}
