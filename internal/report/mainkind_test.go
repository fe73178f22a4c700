package report

import (
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// TestMainErrorKindIsDeterministic: the error kind a message names is the most
// frequent, ties broken by name, whatever order the map gives.
func TestMainErrorKindIsDeterministic(t *testing.T) {
	r := &runfmt.LoadResult{
		ErrorKinds:   map[string]int64{"timeout": 3, "refused": 9, "reset": 9, "closed": 1, "status-5xx": 2},
		ErrorSamples: map[string]string{"refused": "connection refused", "reset": "connection reset"},
	}
	for range 50 {
		if got := MainErrorKind(r); !strings.HasPrefix(got, "9 refused: connection refused") {
			t.Fatalf("MainErrorKind = %q; want the most frequent, refused (tied with reset, first by name)", got)
		}
	}
	if got := MainErrorKind(&runfmt.LoadResult{}); got != "" {
		t.Errorf("no errors: %q", got)
	}
}
