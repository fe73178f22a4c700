package decide

import (
	"bytes"

	"perflab/internal/analysis"
	"perflab/internal/report"
	"perflab/internal/runfmt"
)

// Flames are report.html's flame graphs of the run: its CPU profile (per
// request when the run had requests) and its wall-time profile's time
// off a CPU. A graph that cannot be drawn is a warning.
func (dec *Decision) Flames() report.Flames {
	d := dec.d
	var flame []byte
	if cpu := d.prof.Profile(runfmt.ProfileCPU); cpu != nil {
		var buf bytes.Buffer
		opt := analysis.FlameOptions{Title: d.run.ID + ": CPU", Requests: d.run.PerRequestCount(), Scale: d.run.CPUScale(), UserCode: d.userCode()}
		if err := analysis.WriteFlameHTML(&buf, cpu, opt); err != nil {
			d.warn("flame graph for report.html: " + err.Error())
		} else {
			flame = buf.Bytes()
		}
	}
	return report.Flames{CPU: flame, OffCPU: d.offCPUFlame()}
}
