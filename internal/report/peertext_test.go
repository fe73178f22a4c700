package report

import (
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// A peer whose calls overlapped on a connection is named with why its
// answers are not counted, and no count or answer time.
func TestPeerTextAnswersNotCounted(t *testing.T) {
	cpu := 0.2
	got := peerText(&runfmt.LedgerPeer{Address: "127.0.0.1:50051", PID: 42, Name: "grpccache", CPUMsPerRequest: &cpu,
		AnswersNotCounted: "calls overlapped on its connections"})
	if !strings.Contains(got, "answers not counted (calls overlapped on its connections)") || strings.Contains(got, "per request answered") ||
		strings.Contains(got, "answers in") || !strings.Contains(got, "its CPU 200.0 µs per request") {
		t.Errorf("peer text %q", got)
	}
}
