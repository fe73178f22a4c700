package analysis

import (
	"math"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// TestSpinShares: a stack is a spin when, past the runtime's pause, yield,
// sleep and clock leaves, its first function is a spinner; the GC's share
// and the CPU owners leave the spins out of the GC.
func TestSpinShares(t *testing.T) {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("runtime.gcBgMarkWorker;runtime.markroot;runtime.suspendG;runtime.procyield;runtime.procyieldAsm", 40e6).
		Add("runtime.gcBgMarkWorker;runtime.markroot;runtime.suspendG", 10e6).                         // the loop itself
		Add("main.handler;runtime.chansend;runtime.lock2;runtime.osyield", 10e6).                      // a lock's wait under user code
		Add("runtime.gcBgMarkWorker;runtime.scanobject", 20e6).                                        // GC work
		Add("main.handler;sync.(*Mutex).lockSlow;runtime.sync_runtime_doSpin;runtime.procyield", 5e6). // not a runtime spinner
		Add("main.handler;runtime.nanotime", 15e6).                                                    // a clock read is no spin
		Profile()
	v := NewCPUView(cpu, 100, UserCode{}, 0, 0)
	checkSpins(t, v.SpinShares(), map[string]float64{"runtime.suspendG": 0.5, "runtime.lock2": 0.1})
	if gc := v.GCShare(); math.Abs(gc-0.2) > 1e-9 {
		t.Errorf("GC share %.3f; want 0.200 (its worker's spins left out)", gc)
	}
	owners := CPUOwnerShares(cpu, UserCode{})
	for o, w := range map[runfmt.CPUOwner]float64{runfmt.OwnerSpin: 0.6, runfmt.OwnerGC: 0.2, runfmt.OwnerUser: 0.2} {
		if math.Abs(owners[o]-w) > 1e-9 {
			t.Errorf("owner %s = %.3f; want %.3f (all %v)", o, owners[o], w, owners)
		}
	}
}

// A spinner's loop inlines atomics: a sample on one is the loop's, and
// unlock2's compare-and-swap on a contended lock word and casgstatus's
// wait for a stack scan are spins; an atomic elsewhere is not.
func TestSpinSharesThroughInlinedAtomics(t *testing.T) {
	cpu := labtest.NewProfile(t, "cpu/nanoseconds").
		Add("runtime.bgsweep;runtime.unlockWithRank;runtime.unlock2", 30e6).
		Add("runtime.execute;runtime.casgstatus;internal/runtime/atomic.(*Uint32).CompareAndSwap", 10e6).
		Add("runtime.schedule;runtime.wakep;internal/runtime/atomic.(*Int32).Add", 10e6).
		Add("main.handler", 50e6).
		Profile()
	checkSpins(t, NewCPUView(cpu, 100, UserCode{}, 0, 0).SpinShares(), map[string]float64{"runtime.unlock2": 0.3, "runtime.casgstatus": 0.1})
}

// checkSpins fails t unless got holds want's spinners with their shares.
func checkSpins(t *testing.T, got, want map[string]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("spins %v; want %v", got, want)
	}
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-9 {
			t.Errorf("spin %s = %.3f; want %.3f", k, got[k], w)
		}
	}
}
