package walltime

import (
	"bytes"
	"testing"
)

// FuzzRead feeds Read mutations of a real trace (testdata/sleep.trace):
// it must return an error or a consistent analysis, never panic.
func FuzzRead(f *testing.F) {
	good := sampleTrace(f)
	f.Add(good)
	f.Add(good[:len(good)/3])
	f.Add(good[:16])
	f.Add([]byte("go 1.22 trace\x00\x00\x00\x01\x02"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		for k, d := range a.Time {
			if d < 0 {
				t.Errorf("%s time %v < 0", k, d)
			}
		}
		if a.Idle < 0 || a.Duration < 0 || a.PBusy < 0 {
			t.Errorf("negative totals: idle %v, duration %v, P busy %v", a.Idle, a.Duration, a.PBusy)
		}
		if err := a.Profile.CheckValid(); err != nil {
			t.Errorf("profile: %v", err)
		}
	})
}
