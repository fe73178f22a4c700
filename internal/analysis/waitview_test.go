package analysis

import (
	"math"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

func TestTimeKinds(t *testing.T) {
	tm := &runfmt.TimePerRequest{Kinds: TimeKinds(labtest.PlantedWall(t), 100, UserCode{})}
	for _, k := range tm.Kinds {
		tm.TotalMs += k.MsPerRequest
	}
	want := map[runfmt.TimeKind]float64{"running": 1, "runnable": 0.5, "network": 20, "sleep": 5}
	for _, k := range tm.Kinds {
		if math.Abs(k.MsPerRequest-want[k.Kind]) > 1e-9 {
			t.Errorf("%s: %.3f ms/request; want %.3f", k.Kind, k.MsPerRequest, want[k.Kind])
		}
	}
	if k := tm.Kind("network"); k.Top == nil || k.Top.Function != "main.fetchPrice" || k.Top.Callee != "net/http.(*Client).Get" || k.Waits["downstream"] != 20 {
		t.Errorf("network = %+v (top %+v); want main.fetchPrice in net/http.(*Client).Get, all downstream", k, k.Top)
	}
	if math.Abs(tm.TotalMs-26.5) > 1e-9 {
		t.Errorf("total %.3f ms; want 26.5", tm.TotalMs)
	}
}
