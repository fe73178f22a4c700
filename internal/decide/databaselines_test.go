package decide

import (
	"testing"

	"perflab/internal/runfmt"
)

// TestDatabaseLines: a Python function's line running a DB-API query
// (py-spy shows no frame for sqlite3's C code) is database work; another
// line is not, and a function the profile already showed a database client
// under keeps that figure.
func TestDatabaseLines(t *testing.T) {
	hot := []runfmt.HotFunc{
		{Function: "list_orders", UserCode: true, Lines: []runfmt.SourceLine{
			{Text: `        cur.execute("select * from items where order_id = ?", (oid,))`, CostUsPerRequest: 800},
			{Text: `    return json.dumps(rows)`, CostUsPerRequest: 200},
		}},
		{Function: "report", UserCode: true, DatabaseUsPerRequest: 50, Lines: []runfmt.SourceLine{{Text: `cur.execute("select 1")`, CostUsPerRequest: 900}}},
		{Function: "render", UserCode: true, Lines: []runfmt.SourceLine{{Text: `    return template.render(rows)`, CostUsPerRequest: 300}}},
	}
	databaseLines(hot, string(runfmt.RuntimePython))
	got := []float64{hot[0].DatabaseUsPerRequest, hot[1].DatabaseUsPerRequest, hot[2].DatabaseUsPerRequest}
	if got[0] != 800 || got[1] != 50 || got[2] != 0 {
		t.Errorf("database µs/request %v; want [800 50 0]", got)
	}
}
