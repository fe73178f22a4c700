package ui

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
)

// Options say what the UI may show and to whom.
type Options struct {
	// LocalOnly answers 403 to clients that are not on this machine's
	// loopback interface and to requests whose Host header is not a
	// loopback name or address (a page of another site that rebinds its
	// DNS name to 127.0.0.1 sends its own name), as pprof's web UI refuses
	// non-local clients. Set it when the UI listens on loopback.
	LocalOnly bool
	// SourceDirs are the directories whose files pprof's source view may
	// show (--source-dir); none by default. A profile names source files
	// by path, and a profile from someone else must not make the UI show
	// the user's files.
	SourceDirs []string
}

// guard wraps the UI's routes: the local-client check, then Go's
// cross-origin protection, which refuses state-changing requests (pprof's
// saved-settings POST and DELETE) sent by another site's page.
func (s *Server) guard(h http.Handler) http.Handler {
	protected := http.NewCrossOriginProtection().Handler(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opt.LocalOnly && !localRequest(r) {
			http.Error(w, "perflab ui answers this machine only (a loopback client, Host localhost or 127.0.0.1)", http.StatusForbidden)
			return
		}
		protected.ServeHTTP(w, r)
	})
}

// localRequest says whether r comes from the loopback interface and names
// a loopback host.
func localRequest(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return false
	}
	return loopbackName(r.Host)
}

// loopbackName says whether a Host header names this machine's loopback.
func loopbackName(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// errOutside is a path that leads out of the directory it must stay in.
var errOutside = errors.New("outside the run directory")

// within resolves path (symbolic links included) and checks that it stays
// inside dir (itself resolved): the UI reads nothing a link inside --dir
// points at elsewhere.
func within(dir, path string) (string, error) {
	rdir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	rpath, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(rdir, rpath)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s: %w", path, errOutside)
	}
	return rpath, nil
}
