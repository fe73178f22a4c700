package load

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestParseTargets(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "body.json"), []byte(`{"a":1}`), 0o644)
	in := `# comment
GET http://127.0.0.1:8080/a
X-Trace: 1

POST http://127.0.0.1:8080/b
Content-Type: application/json
@body.json

PUT https://127.0.0.1:8443/c
< inline body
`
	ts, err := ParseTargets(strings.NewReader(in), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 3 {
		t.Fatalf("got %d targets", len(ts))
	}
	if ts[0].Method != "GET" || ts[0].Header.Get("X-Trace") != "1" || ts[0].URL.Path != "/a" {
		t.Errorf("target 1 = %+v", ts[0])
	}
	if string(ts[1].Body) != `{"a":1}` || ts[1].Header.Get("Content-Type") != "application/json" {
		t.Errorf("target 2 = %+v", ts[1])
	}
	if string(ts[2].Body) != "inline body" || ts[2].URL.Scheme != "https" {
		t.Errorf("target 3 = %+v", ts[2])
	}
}

func TestParseTargetsErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"GET http://127.0.0.1/\nbad header line\n", "line 2"},
		{"get http://x/\n", "line 1"},
		{"\n\nGET ftp://x/\n", "line 3"},
		{"GET http://127.0.0.1/\n@/does/not/exist\n", "line 2"},
		{"# only comments\n", "no requests"},
	} {
		_, err := ParseTargets(strings.NewReader(tc.in), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseTargets(%q) = %v; want error with %q", tc.in, err, tc.want)
		}
	}
}

func TestParseURL(t *testing.T) {
	if u, err := ParseURL("http://127.0.0.1:8080"); err != nil || u.Path != "/" {
		t.Errorf("ParseURL = %v, %v", u, err)
	}
	for _, bad := range []string{"", "127.0.0.1:8080", "ftp://x/", "http://", "http://[::1", "://x"} {
		if _, err := ParseURL(bad); err == nil {
			t.Errorf("ParseURL(%q): want error", bad)
		}
	}
}

// TestParseURLNamesTheURLMeant: an address without http:// is refused
// with the URL it most likely meant.
func TestParseURLNamesTheURLMeant(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:8080/search": "give http://127.0.0.1:8080/search",
		"localhost:8080":        "give http://localhost:8080/",
		":8080":                 "give http://127.0.0.1:8080/",
		"":                      "URL is empty",
		"/tmp/server":           "a path, not a URL",
		"./server":              "a path, not a URL",
	} {
		_, err := ParseURL(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseURL(%q) = %v; want an error with %q", in, err, want)
		}
	}
}

func TestParseHeader(t *testing.T) {
	n, v, err := ParseHeader("X-A:  b c ")
	if err != nil || n != "X-A" || v != "b c" {
		t.Errorf("got %q %q %v", n, v, err)
	}
	for _, bad := range []string{"novalue", ": x", "X A: b", "X-A: b\r\nX-B: c"} {
		if _, _, err := ParseHeader(bad); err == nil {
			t.Errorf("ParseHeader(%q): want error", bad)
		}
	}
}

func FuzzParseTargets(f *testing.F) {
	f.Add("GET http://127.0.0.1:8080/\nX-A: 1\n\nPOST http://127.0.0.1/x\n< body\n")
	f.Add("# c\n\nDELETE https://h/p?q=1\n")
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := ParseTargets(strings.NewReader(s), t.TempDir())
		if err != nil {
			return
		}
		for _, tg := range ts {
			if tg.URL == nil || tg.URL.Host == "" || tg.Method == "" {
				t.Fatalf("accepted an incomplete target %+v from %q", tg, s)
			}
			p := prepare(&tg, &Config{})
			if !strings.HasSuffix(string(p.raw[:len(p.raw)-len(tg.Body)]), "\r\n\r\n") {
				t.Fatalf("bad request encoding %q", p.raw)
			}
		}
	})
}

func FuzzParseHeader(f *testing.F) {
	f.Add("X-A: b")
	f.Add("Authorization: Bearer x:y")
	f.Fuzz(func(t *testing.T, s string) {
		n, v, err := ParseHeader(s)
		if err == nil && (n == "" || strings.ContainsAny(n+v, "\r\n")) {
			t.Fatalf("ParseHeader(%q) accepted %q %q", s, n, v)
		}
	})
}

// TestPrepareSendsOnlyWhatWasAsked checks the encoded request: Host, the
// user's headers and Content-Length for a body, nothing perflab adds.
func TestPrepareSendsOnlyWhatWasAsked(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1:8080/a?b=1")
	for _, c := range []struct {
		tg   Target
		want string
	}{
		{Target{Method: "GET", URL: u, Header: http.Header{}},
			"GET /a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"},
		{Target{Method: "GET", URL: u, Header: http.Header{"User-Agent": {"me"}, "Host": {"example.com"}}},
			"GET /a?b=1 HTTP/1.1\r\nHost: example.com\r\nUser-Agent: me\r\n\r\n"},
		{Target{Method: "POST", URL: u, Header: http.Header{}, Body: []byte("xy")},
			"POST /a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 2\r\n\r\nxy"},
	} {
		if got := string(prepare(&c.tg, &Config{}).raw); got != c.want {
			t.Errorf("%s %v: encoded %q; want %q", c.tg.Method, c.tg.Header, got, c.want)
		}
	}
	c := Config{DisableKeepAlive: true}
	if got := string(prepare(&Target{Method: "GET", URL: u, Header: http.Header{}}, &c).raw); !strings.Contains(got, "\r\nConnection: close\r\n") {
		t.Errorf("--disable-keepalive: encoded %q; want Connection: close", got)
	}
}

// FuzzParseURL: an accepted URL is http or https, has a host, a path, and
// a port (if any) from 1 to 65535; nothing panics.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8080/", "https://h/p?q=1", "http://127.0.0.1:0/", "http://127.0.0.1:70000/",
		"ftp://x/", "127.0.0.1:8080", "http://[::1]:8080/", "http://:80/", "http://h:-1/", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseURL(s)
		if err != nil {
			return
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.Path == "" {
			t.Fatalf("ParseURL(%q) accepted %#v", s, u)
		}
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				t.Fatalf("ParseURL(%q) accepted port %q", s, p)
			}
		}
	})
}

// A URL that cannot be sent as typed is refused, saying why: a raw space
// would split the request line, and a zoned IPv6 address is not dialled.
func TestParseURLRefusesWhatCannotBeSent(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:1/a b":          "a space at byte 20: write it escaped (%20)",
		" http://127.0.0.1:1/":            "a space at byte 0",
		"http://127.0.0.1:1/a\x00b":       "a control character at byte 20: write it escaped (%00)",
		"http://[fe80::1%25eth0]:8080/":   "an IPv6 zone (%eth0)",
		"http://[fe80::1%25en0]/x?q=a%20": "an IPv6 zone (%en0)",
	} {
		if _, err := ParseURL(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseURL(%q) = %v; want an error with %q", in, err, want)
		}
	}
	if _, err := ParseURL("http://[::1]:8080/a%20b"); err != nil {
		t.Errorf("an escaped space and an IPv6 loopback: %v", err)
	}
}
