package analysis

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// The URL rules a Python view declares in its decorators, read from its
// source: Flask's @app.route("/report") and @bp.get("/x"), FastAPI's
// @router.post("/items/{id}"). A handler with rules is tied to the load
// targets whose paths they match, before its name is tried. A regular
// expression on the decorator's line: parsing Python for one call's first
// argument is not worth a parser.

// routeDecorator is a decorator line declaring a URL rule.
var routeDecorator = regexp.MustCompile(`^\s*@[\w.]+\.(?:route|get|post|put|patch|delete|head|options|api_route)\(\s*(?:rule\s*=\s*|path\s*=\s*)?['"]([^'"]+)['"]`)

// viewRules are the URL rules of the handler fn in file whose frame was
// sampled at line, or nil when its source or decorators say none.
func viewRules(src *Sources, fn, file string, line int64) []string {
	if src == nil || line <= 0 || !strings.HasSuffix(file, ".py") {
		return nil
	}
	sf := src.File(file)
	if sf.Err != nil || int(line) > len(sf.Lines) {
		return nil
	}
	i := int(defLine(sf, fn, line)) - 1 // the def's index, or line's when not found
	if name, _ := declName(sf.Lines[i], runfmt.RuntimePython); name == "" || name != defName(fn, runfmt.RuntimePython) {
		return nil
	}
	var rules []string
	for j := i - 1; j >= 0 && strings.HasPrefix(strings.TrimSpace(sf.Lines[j]), "@"); j-- {
		if m := routeDecorator.FindStringSubmatch(sf.Lines[j]); m != nil {
			rules = append(rules, m[1])
		}
	}
	return rules
}

// sampledLine is a line of fn in file that the profile sampled (the
// handler's call of what it runs), 0 when none.
func sampledLine(p *profile.Profile, fn, file string) int64 {
	for _, l := range p.Location {
		for _, ln := range l.Line {
			if ln.Function != nil && ln.Function.Name == fn && ln.Function.Filename == file && ln.Line > 0 {
				return ln.Line
			}
		}
	}
	return 0
}

// ruleMatches says the URL path of target ("GET http://h/items/7?x=1")
// matches rule ("/items/<int:id>", "/items/{id}"): segment by segment, a
// variable segment matching any, a trailing slash ignored.
func ruleMatches(rule, target string) bool {
	raw := target
	if _, u, ok := strings.Cut(target, " "); ok {
		raw = u
	}
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	rs := strings.Split(strings.Trim(rule, "/"), "/")
	ps := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(rs) != len(ps) {
		return false
	}
	for i, r := range rs {
		variable := strings.HasPrefix(r, "<") && strings.HasSuffix(r, ">") || strings.HasPrefix(r, "{") && strings.HasSuffix(r, "}")
		if !variable && r != ps[i] || variable && ps[i] == "" {
			return false
		}
	}
	return true
}
