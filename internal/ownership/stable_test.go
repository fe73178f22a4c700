package ownership

import (
	"reflect"
	"testing"
)

func TestStable(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		// The same JVM lambda in two runs (JDK 17's counter and address,
		// JDK 21's address, an older JDK's counter and hash).
		{"java.lang.Object Server$$Lambda$1/0x00007f602c000a08.apply(java.lang.Object)", "java.lang.Object Server$$Lambda$7/0x0000000800c4b2f0.apply(java.lang.Object)"},
		{"Foo$$Lambda/0x000000080012a3b0.apply", "Foo$$Lambda/0x0000000801a00000.apply"},
		{"Foo$$Lambda$123/456.apply", "Foo$$Lambda$98/1771.apply"},
		{"java.lang.invoke.LambdaForm$MH/0x0000000800c01234.invoke", "java.lang.invoke.LambdaForm$MH/0x0000000800d09876.invoke"},
		{"jdk.internal.reflect.GeneratedMethodAccessor12.invoke", "jdk.internal.reflect.GeneratedMethodAccessor3.invoke"},
		{"com.sun.proxy.$Proxy12.handle", "com.sun.proxy.$Proxy7.handle"},
		{"com.acme.Svc$$EnhancerBySpringCGLIB$$a1b2c3d4.run", "com.acme.Svc$$EnhancerBySpringCGLIB$$99ff00aa.run"},
		// Go closures renumbered when one is added above.
		{"main.handler.func1", "main.handler.func2"},
		{"main.handler.func2.1", "main.handler.func3.1"},
		{"main.serve.gowrap1", "main.serve.gowrap2"},
		{"main.walk-range1", "main.walk-range2"},
		// node's anonymous functions, named by their line.
		{"(anonymous):13", "(anonymous):15"},
		{"JS:*summarize /srv/app.js:2:19", "JS:~summarize /srv/app.js:4:19"},
		// GCC's clones, Rust's hashes and closures, perf's map names.
		{"encoder_listencode_obj.isra.0", "encoder_listencode_obj.isra.1"},
		{"parse.constprop.0.cold", "parse"},
		{"regex::Regex::new::h0123456789abcdef", "regex::Regex::new::hfedcba9876543210"},
		{"axumsvc::handler::{closure#0}", "axumsvc::handler::{closure#1}"},
		{"perf-11058.map+0x7f472b8fd78e", "perf-2201.map+0x7f472b8aaaaa"},
		// py-spy's lambda, named by its line.
		{"handler.<locals>.<lambda> (/srv/app/app.py:12)", "handler.<locals>.<lambda> (/srv/app/app.py:14)"},
	} {
		if Stable(tc.a) != Stable(tc.b) {
			t.Errorf("Stable(%q) = %q, Stable(%q) = %q: want the same key", tc.a, Stable(tc.a), tc.b, Stable(tc.b))
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"main.handler", "main.handle"},
		{"Server.handle", "Server.handler"},
		{"Foo$$Lambda$1/0x1.apply", "Bar$$Lambda$1/0x1.apply"},
		{"json.dumps", "json.loads"},
	} {
		if Stable(tc.a) == Stable(tc.b) {
			t.Errorf("Stable(%q) = Stable(%q) = %q: want different keys", tc.a, tc.b, Stable(tc.a))
		}
	}
	for _, s := range []string{"main.handler", "net/http.(*conn).serve", "<lambda>", "handler.<locals>.<lambda>"} {
		if Stable(s) != s {
			t.Errorf("Stable(%q) = %q, want it unchanged", s, Stable(s))
		}
	}
}

// TestPair: ab pairs one function across two runs instead of listing it
// as both gone and new.
func TestPair(t *testing.T) {
	base := []string{"main.handler", "main.handler.func1", "main.handler.func2", "Server$$Lambda$1/0x00007f602c000a08.apply", "main.gone", "main.a.func1", "main.a.func2"}
	cur := []string{"main.handler", "main.handler.func2", "main.handler.func3", "Server$$Lambda$3/0x0000000800c4b2f0.apply", "main.new", "main.a.func3", "main.a.func4"}
	got := Pair(base, cur)
	want := map[string]string{
		"main.handler":       "main.handler",
		"main.handler.func2": "main.handler.func2",
		// func1 is gone and func3 new: the only unpaired closures of
		// handler on each side, one function renumbered.
		"main.handler.func3":                        "main.handler.func1",
		"Server$$Lambda$3/0x0000000800c4b2f0.apply": "Server$$Lambda$1/0x00007f602c000a08.apply",
		// a's two closures were both renumbered: not guessed.
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Pair = %v, want %v", got, want)
	}
}
