package report

import (
	"fmt"
	"slices"
	"strings"

	"perflab/internal/runfmt"
	"perflab/internal/units"
)

// The words of a run's quality (run.json's quality): the line shown after
// "Measurement: " and the causes of a noisy measurement, made from the
// record's figures. A run written before schema 5 kept its own words
// (SummaryNote, ReasonNotes), shown as they were.

// QualityLine is the quality's one line: the verdict, the other
// processes' and perflab's CPU, and for a noisy run what the noise
// distorts: "NOISY — other processes used 1.46 of 2 cores (grpcapi[5469]
// 0.22, ...); latency and throughput figures are inflated, CPU per
// request far less".
func QualityLine(q *runfmt.Quality) string {
	if q.SummaryNote != "" {
		return q.SummaryNote
	}
	if !q.Noisy() {
		s := "clean — " + othersText(q)
		if gen := generatorText(q); gen != "" {
			s += "; " + gen
		}
		return s
	}
	s := "NOISY — " + strings.Join(QualityCauses(q), "; ") + distortedText(q)
	if slices.Contains(q.Distorted, runfmt.RunProfileShares) && q.ProfileOverMeasured > 0 {
		s += "; the profile's shares do not hold (" + overCountedText(q) + ")"
	}
	return s
}

// QualityCauses says what made the measurement noisy, one phrase a
// cause; none for a clean one.
func QualityCauses(q *runfmt.Quality) []string {
	if q == nil {
		return nil
	}
	if q.ReasonNotes != nil {
		return q.ReasonNotes
	}
	out := make([]string, 0, len(q.Causes))
	for _, c := range q.Causes {
		out = append(out, noiseCauseText(q, c))
	}
	return out
}

func noiseCauseText(q *runfmt.Quality, c runfmt.NoiseCause) string {
	switch c {
	case runfmt.NoiseOtherProcesses:
		return othersText(q)
	case runfmt.NoiseSteal:
		return fmt.Sprintf("the hypervisor took %.2f cores (steal)", q.StealCores)
	case runfmt.NoiseGeneratorWaited:
		return generatorText(q)
	}
	return string(c)
}

// distortedText ends a noisy quality's line with what the noise
// distorts: a batch program's wall time and cores busy, a service's
// latency and throughput, and its CPU per request when its runtime spun
// waiting for a CPU.
func distortedText(q *runfmt.Quality) string {
	switch {
	case slices.Contains(q.Distorted, runfmt.RunWallTime):
		return "; the wall time and the cores busy are inflated or held back, the CPU time far less"
	case slices.Contains(q.Distorted, runfmt.RunCPUPerRequest) && q.SpunShare > 0:
		return "; latency, throughput and CPU per request are inflated (" + spunText(q) + ")"
	}
	return "; latency and throughput figures are inflated, CPU per request far less"
}

func spunText(q *runfmt.Quality) string {
	return fmt.Sprintf("the runtime spun %s of the CPU waiting for threads without a CPU", units.FormatPct(100*q.SpunShare))
}

func overCountedText(q *runfmt.Quality) string {
	return fmt.Sprintf("the profiler counted threads waiting for a CPU as working: the profile stands for %s× the CPU measured", units.Sig(q.ProfileOverMeasured))
}

// othersText is the other processes' CPU, with the busiest by name.
func othersText(q *runfmt.Quality) string {
	return fmt.Sprintf("other processes used %.2f of %d cores%s", q.OtherCores, q.HostCores, topOtherText(q.TopOther))
}

// generatorText describes the load generator's CPU and waiting; "" when
// perflab's CPU was not measured.
func generatorText(q *runfmt.Quality) string {
	switch {
	case q.PerflabWaitMsPerRequest > 0:
		return fmt.Sprintf("the load generator waited %s per request for a CPU (perflab used %.2f cores)", units.FormatMs(q.PerflabWaitMsPerRequest), q.PerflabCores)
	case q.PerflabCores > 0:
		return fmt.Sprintf("perflab used %.2f cores and waited %.2f s for a CPU", q.PerflabCores, q.PerflabRunqueueWaitS)
	}
	return ""
}

// topOtherText names the busiest other processes: " (stress[7] 0.98,
// yes[8] 0.61)".
func topOtherText(top []runfmt.ProcessCPU) string {
	var parts []string
	for i, p := range top {
		if i == 3 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s[%d] %.2f", p.Name, p.PID, p.Cores))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
