package load

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"perflab/internal/files"
)

// Target is one request to send.
type Target struct {
	Method string
	URL    *url.URL
	Header http.Header
	Body   []byte
}

// ParseURL checks a load URL: absolute, http or https, with a host.
func ParseURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, fmt.Errorf("URL is empty: give http://HOST:PORT/PATH")
	}
	if !strings.Contains(raw, "://") {
		// "127.0.0.1:8080/" or "localhost:8080" parse as a scheme and
		// an opaque part, ":8080" not at all: name the URL meant.
		if host, _, _ := strings.Cut(raw, "/"); host == "" || host == "." || host == ".." {
			return nil, fmt.Errorf("URL %q: a path, not a URL: want http://HOST:PORT/PATH", raw)
		}
		return nil, fmt.Errorf("URL %q: no http:// before the host: give %s", raw, withScheme(raw))
	}
	if i := strings.IndexFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f }); i >= 0 {
		// url.Parse takes a space in the path, and the request line
		// would then split there.
		what := "a space"
		if raw[i] != ' ' {
			what = "a control character"
		}
		return nil, fmt.Errorf("URL %q: %s at byte %d: write it escaped (%%%02X)", raw, what, i, raw[i])
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("URL %q: %w", raw, unwrapURLError(err))
	}
	if _, zone, ok := strings.Cut(u.Hostname(), "%"); ok {
		return nil, fmt.Errorf("URL %q: an IPv6 zone (%%%s): perflab does not dial addresses with a zone; give a global or loopback address", raw, zone)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("URL %q: scheme must be http or https (e.g. http://127.0.0.1:8080/)", raw)
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("URL %q: no host (e.g. http://127.0.0.1:8080/)", raw)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("URL %q: port %s must be from 1 to 65535", raw, p)
		}
	}
	if u.Path == "" {
		u.Path = "/"
	}
	return u, nil
}

// withScheme is the URL a schemeless address most likely meant:
// "http://" before it, and before ":PORT" the loopback host too.
func withScheme(raw string) string {
	if strings.HasPrefix(raw, ":") {
		raw = "127.0.0.1" + raw
	}
	if !strings.Contains(raw, "/") {
		raw += "/"
	}
	return "http://" + raw
}

func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// ParseHeader parses one "Name: value" header as given to -H.
func ParseHeader(s string) (name, value string, err error) {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return "", "", fmt.Errorf("header %q: want \"Name: value\"", s)
	}
	for _, r := range name {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune("()<>@,;:\\\"/[]?={}", r) {
			return "", "", fmt.Errorf("header %q: invalid character %q in the name", s, r)
		}
	}
	value = strings.TrimSpace(value)
	if strings.ContainsAny(value, "\r\n\x00") {
		return "", "", fmt.Errorf("header %q: the value contains a line break or NUL", s)
	}
	return name, value, nil
}

// Bounds of the request bodies perflab keeps in memory and sends: one body
// (--body-file, a targets file's @path), and all of a targets file's.
const (
	MaxBodyBytes       = 64 << 20
	MaxTargetBodyBytes = 256 << 20
)

// ParseTargets reads a targets file: blocks separated by blank lines, each
//
//	METHOD URL
//	Header-Name: value      (any number)
//	@path/to/body           (optional: body from a file, relative to the targets file)
//	< inline body text      (optional: the rest of the line is the body)
//
// Lines starting with # are comments. Requests are sent in round robin.
// baseDir resolves relative @body paths.
func ParseTargets(r io.Reader, baseDir string) ([]Target, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var out []Target
	var cur *Target
	line := 0
	budget := int64(MaxTargetBodyBytes)
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		trimmed := strings.TrimSpace(text)
		if strings.HasPrefix(trimmed, "#") {
			continue
		}
		if trimmed == "" {
			cur = nil
			continue
		}
		if err := parseTargetLine(trimmed, baseDir, &cur, &out, &budget); err != nil {
			return nil, fmt.Errorf("targets line %d: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("targets line %d: %w", line+1, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the file holds no requests (want lines like \"GET http://127.0.0.1:8080/\")")
	}
	return out, nil
}

func parseTargetLine(s, baseDir string, cur **Target, out *[]Target, budget *int64) error {
	if *cur == nil {
		method, rawURL, ok := strings.Cut(s, " ")
		if !ok || !validMethod(method) {
			return fmt.Errorf("%q: want \"METHOD URL\" (e.g. \"GET http://127.0.0.1:8080/\")", s)
		}
		u, err := ParseURL(strings.TrimSpace(rawURL))
		if err != nil {
			return err
		}
		*out = append(*out, Target{Method: method, URL: u, Header: http.Header{}})
		*cur = &(*out)[len(*out)-1]
		return nil
	}
	t := *cur
	switch {
	case strings.HasPrefix(s, "@"):
		p := s[1:]
		if !filepath.IsAbs(p) {
			p = filepath.Join(baseDir, p)
		}
		b, err := files.ReadFile(p, min(MaxBodyBytes, max(*budget, 1)))
		if err != nil {
			return fmt.Errorf("body file: %w (the bodies of a targets file may take %d MiB in all)", err, MaxTargetBodyBytes>>20)
		}
		*budget -= int64(len(b))
		t.Body = b
	case strings.HasPrefix(s, "<"):
		t.Body = []byte(strings.TrimSpace(s[1:]))
	default:
		name, value, err := ParseHeader(s)
		if err != nil {
			return err
		}
		if k := http.CanonicalHeaderKey(name); k == "Content-Length" || k == "Transfer-Encoding" {
			return fmt.Errorf("%q: perflab sets %s from the body (@path or < text)", s, k)
		}
		t.Header.Add(name, value)
	}
	return nil
}

func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, r := range m {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}
