package cli

import (
	"bytes"
	"testing"

	"perflab/internal/runfmt"
)

// testEnv captures a command's output.
func testEnv() (Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}, &out, &errb
}

// topGainer is the user-code function whose cost per request fell most.
func topGainer(rows []runfmt.FunctionDelta, kind runfmt.ProfileType) *runfmt.FunctionDelta {
	var best *runfmt.FunctionDelta
	for i := range rows {
		r := &rows[i]
		if r.Profile == kind && r.UserCode && r.Delta < 0 && (best == nil || r.Delta < best.Delta) {
			best = r
		}
	}
	return best
}

// TestSharedName: runs of ./server-old against ./server-new are named
// server-base and server-new, not server-old-new.
func TestSharedName(t *testing.T) {
	for _, tc := range [][3]string{
		{"server-old", "server-new", "server"},
		{"server", "server", "server"},
		{"api_v1", "api_v2", "api_v"},
		{"old", "new", "ab"},
	} {
		if got := sharedName(tc[0], tc[1]); got != tc[2] {
			t.Errorf("sharedName(%q, %q) = %q; want %q", tc[0], tc[1], got, tc[2])
		}
	}
}
