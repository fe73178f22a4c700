package ownership

import (
	"regexp"
	"strings"
)

// Names that change from run to run for the same code: the JVM names
// lambdas and hidden classes with a counter and an address
// ("Server$$Lambda$17/0x000000080012a3b0.apply",
// "Server$$Lambda/0x00007f602c000a08.apply" since JDK 21), generated
// accessors and proxies with a counter, CGLIB and ByteBuddy classes with
// a hash; Go numbers closures in source order ("handler.func2.1"), which
// shifts when a closure is added above; node names an anonymous function
// by its line ("(anonymous):42"), and py-spy a Python lambda
// ("<lambda> (app.py:12)"); GCC's clones carry a counter
// ("encode.isra.0", "parse.constprop.3", "run.cold"); legacy Rust
// symbols a hash ("::h0123456789abcdef"); perf names a JIT's map by pid.
// Stable rewrites each to a form without them, so the same function in
// two runs has one key.

// stableRules are applied in order.
var stableRules = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`\$\$Lambda(?:\$[0-9]+)?(?:/(?:0x[0-9a-fA-F]+|[0-9]+))?`), "$$$$Lambda"},
	{regexp.MustCompile(`/0x[0-9a-fA-F]+`), ""},
	{regexp.MustCompile(`\b(Generated(?:Serialization)?(?:Method|Constructor)Accessor)[0-9]+`), "$1"},
	{regexp.MustCompile(`\$Proxy[0-9]+`), "$$Proxy"},
	{regexp.MustCompile(`\$\$(EnhancerBySpringCGLIB|FastClassBySpringCGLIB|EnhancerByCGLIB|SpringCGLIB)\$\$[0-9a-fA-F]+`), "$$$$$1"},
	{regexp.MustCompile(`\$(HibernateProxy|ByteBuddy|MockitoMock)\$[A-Za-z0-9]+`), "$$$1"},
	{regexp.MustCompile(`\.(func|gowrap|deferwrap)[0-9]+((?:\.[0-9]+)*)`), ".$1*"},
	{regexp.MustCompile(`-range[0-9]+`), "-range*"},
	{regexp.MustCompile(`^\(anonymous\):[0-9]+`), "(anonymous)"},
	{regexp.MustCompile(`^((?:JS|LazyCompile|Function|InterpretedFunction):)[~^*+-]?(.*?):[0-9]+:[0-9]+$`), "$1$2"},
	{regexp.MustCompile(`(\.(?:isra|constprop|part|cold|lto_priv|llvm)(?:\.[0-9]+)?)+$`), ""},
	{regexp.MustCompile(`::h[0-9a-f]{16}$`), ""},
	{regexp.MustCompile(`\{closure#[0-9]+\}`), "{closure}"},
	{regexp.MustCompile(`\{lambda\(([^)]*)\)#[0-9]+\}`), "{lambda($1)}"},
	{regexp.MustCompile(`^(.*<lambda>.*) \((.*?):[0-9]+\)$`), "$1 ($2)"},
	{regexp.MustCompile(`perf-[0-9]+\.map`), "perf-PID.map"},
	{regexp.MustCompile(`\b0x[0-9a-fA-F]{6,}\b`), "0x?"},
}

// stableHint holds the substrings one of which a name needs for a rule
// to apply, so most names skip the regular expressions.
var stableHint = []string{"$", "/0x", ".func", ".gowrap", ".deferwrap", "-range", "(anonymous)", ":", ".isra", ".constprop",
	".part", ".cold", ".lto_priv", ".llvm", "{closure", "{lambda", "<lambda>", "perf-", "0x", "Accessor"}

// Stable returns name without the parts that change from run to run for
// the same code (see above). Two names with the same Stable key may be
// the same function; Pair decides when they are.
func Stable(name string) string {
	hit := false
	for _, h := range stableHint {
		if strings.Contains(name, h) {
			hit = true
			break
		}
	}
	if !hit {
		return name
	}
	for _, r := range stableRules {
		name = r.re.ReplaceAllString(name, r.repl)
	}
	return name
}

// Pair matches the functions of two runs: it returns, for each name of
// cur that is a function of base, that base name. A name present in both
// pairs with itself; then a name of cur left unpaired pairs with the one
// unpaired name of base that has the same Stable key, when exactly one
// name on each side has it (two closures renumbered both ways are left
// unpaired rather than guessed).
func Pair(base, cur []string) map[string]string {
	out := map[string]string{}
	inBase := map[string]bool{}
	for _, b := range base {
		inBase[b] = true
	}
	for _, c := range cur {
		if inBase[c] {
			out[c] = c
		}
	}
	byKey := func(names []string, paired func(string) bool) map[string][]string {
		m := map[string][]string{}
		for _, n := range names {
			if !paired(n) {
				k := Stable(n)
				m[k] = append(m[k], n)
			}
		}
		return m
	}
	inCur := map[string]bool{}
	for _, c := range cur {
		inCur[c] = true
	}
	baseLeft := byKey(base, func(n string) bool { return inCur[n] })
	curLeft := byKey(cur, func(n string) bool { return inBase[n] })
	for k, cs := range curLeft {
		if bs := baseLeft[k]; len(cs) == 1 && len(bs) == 1 {
			out[cs[0]] = bs[0]
		}
	}
	return out
}
