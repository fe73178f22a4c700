package ledger

import (
	"strings"
	"testing"

	"perflab/internal/runfmt"
)

// TestGCRowChargedByBytes: the gc row's time goes to the code that
// allocates, by its bytes per request, not to where the trace saw the
// goroutines wait for the collector: the splitter allocating 1.1 MiB per
// request holds nearly all of it, the 248 B error value next to none;
// without an allocation profile the trace's site stays.
func TestGCRowChargedByBytes(t *testing.T) {
	gc := row(runfmt.TimeGC, 4, runfmt.WaitGCWait, 3.0, runfmt.WaitGCStop, 1.0)
	gc.Top = &runfmt.TimeSite{Function: "main.parseScale", MsPerRequest: 3, Callee: "fmt.Errorf"}
	in := Input{Runtime: runfmt.RuntimeGo, Load: load(10), Target: target(2, true, 0, 0),
		Time: goTrace(row(runfmt.TimeRunning, 2), gc)}
	if s := gcRow(t, Build(in)).Sites; len(s) != 1 || s[0].Function != "main.parseScale" {
		t.Errorf("without an allocation profile: sites %+v; want the trace's", s)
	}
	in.Allocators = []Allocator{
		{Function: "main.columnTotal", Callee: "strings.Split", BytesPerRequest: 1.1 * (1 << 20)},
		{Function: "main.parseScale", Callee: "fmt.Errorf", BytesPerRequest: 248},
	}
	in.AllocBytes = 1.12 * (1 << 20)
	r := gcRow(t, Build(in))
	if len(r.Sites) != 2 || r.Sites[0].Function != "main.columnTotal" || r.Sites[0].Callee != "strings.Split" {
		t.Fatalf("sites %+v; want main.columnTotal in strings.Split first", r.Sites)
	}
	if got, want := r.Sites[0].MsPerRequest, 4*1.1/1.12; got < want-1e-9 || got > want+1e-9 {
		t.Errorf("main.columnTotal charged %.4f ms; want %.4f (its bytes' share of the 4 ms)", got, want)
	}
	if got := r.Sites[1].MsPerRequest; got > 0.001 {
		t.Errorf("main.parseScale charged %.4f ms for 248 B; want next to none", got)
	}
	if r.Sites[0].BytesPerRequest != 1.1*(1<<20) || !strings.Contains(r.Note, "bytes it allocates") {
		t.Errorf("row %+v; want the bytes on the site and the note saying how it was charged", r)
	}
}

func gcRow(t *testing.T, l *runfmt.Ledger) runfmt.LedgerRow {
	t.Helper()
	for _, r := range l.Time.Rows {
		if r.Part == runfmt.PartGC {
			return r
		}
	}
	t.Fatal("no gc row")
	return runfmt.LedgerRow{}
}
