package load

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestHeaderValue(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "token", want: "token"},
		{in: "token\n", want: "token"},
		{in: "token\r\n", want: "token"},
		{in: "token\n\n", err: "byte 6 is a line break"},
		{in: " spaced \t\n", want: " spaced \t"},
		{in: "", want: ""},
		{in: "\n", want: ""},
		{in: "a\rb", err: "byte 2 is a carriage return"},
		{in: "a\x00b\n", err: "byte 2 is NUL"},
		{in: "two\nlines\n", err: "byte 4 is a line break"},
	} {
		got, err := HeaderValue([]byte(tc.in))
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("HeaderValue(%q) = %q, %v; want error with %q", tc.in, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("HeaderValue(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestParseHeaderLines(t *testing.T) {
	in := "# auth for the staging API\r\nAuthorization: Bearer abc\r\n\r\nX-Tenant:  7 \nx-tenant: 8\nCookie: a=@b"
	h, err := ParseHeaderLines([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := http.Header{"Authorization": {"Bearer abc"}, "X-Tenant": {"7", "8"}, "Cookie": {"a=@b"}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("ParseHeaderLines = %v; want %v", h, want)
	}
	for _, tc := range []struct{ in, want string }{
		{"A: 1\nno colon here\n", "line 2"},
		{"A: 1\n\nContent-Length: 3\n", "line 3: Content-Length is set by perflab"},
		{"Bad Name: 1\n", "line 1"},
	} {
		if _, err := ParseHeaderLines([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseHeaderLines(%q) = %v; want error with %q", tc.in, err, tc.want)
		}
	}
}

// FuzzHeaderFiles checks that what the header files' readers accept can
// be sent as headers: no value holds a line break or NUL.
func FuzzHeaderFiles(f *testing.F) {
	for _, s := range []string{"A: 1\nB: 2\n", "v\r\n", "#x\n\nA:b", "a\rb", "X: \x00\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := HeaderValue(b); err == nil && strings.ContainsAny(v, "\r\n\x00") {
			t.Errorf("HeaderValue(%q) = %q: not one line", b, v)
		}
		h, err := ParseHeaderLines(b)
		if err != nil {
			return
		}
		for name, vals := range h {
			if name == "" || strings.ContainsAny(name, " :\r\n") {
				t.Errorf("ParseHeaderLines(%q): name %q", b, name)
			}
			for _, v := range vals {
				if strings.ContainsAny(v, "\r\n\x00") {
					t.Errorf("ParseHeaderLines(%q): value %q", b, v)
				}
			}
		}
	})
}
