package service

import (
	"testing"
	"time"

	"perflab/internal/labtest"
)

// BenchmarkSample measures one sampling pass over a real service: through
// its cgroup, and through /proc (a shell with two children).
func BenchmarkSample(b *testing.B) {
	for _, mode := range []struct {
		name string
		l    layout
	}{{"cgroup", detectLayout()}, {"proc", layout{}}} {
		b.Run(mode.name, func(b *testing.B) {
			p, err := launch(b.Context(), LaunchConfig{Command: []string{"sh", "-c", "sleep 60 & sleep 60 & wait"}}, mode.l)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Stop(time.Second)
			labtest.Eventually(b, 10*time.Second, "the shell and its two children", func() bool { return len(p.PIDs()) == 3 })
			s := NewSampler(p, 0)
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for b.Loop() {
				if smp, ok := s.sample(time.Now()); !ok || smp.Processes != 3 {
					b.Fatalf("sample = %+v, %v; want 3 processes", smp, ok)
				}
			}
			us := float64(time.Since(start).Microseconds()) / float64(b.N)
			b.ReportMetric(us, "µs/sample")
			// At 4 samples a second, the share of one core the sampler uses.
			b.ReportMetric(us*4/1e6*100, "%core@4Hz")
			b.Logf("source %s", p.Source())
		})
	}
}
