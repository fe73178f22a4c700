package service

import (
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestParseCPUs(t *testing.T) {
	good := map[string]float64{"0.5": 0.5, "2": 2, " 1 ": 1, "500m": 0.5, "1.25": 1.25, "0.01": 0.01}
	for in, want := range good {
		if got, err := ParseCPUs(in); err != nil || got != want {
			t.Errorf("ParseCPUs(%q) = %v, %v; want %v, nil", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "abc", "NaN", "inf", "+Inf", "0m", "1e400", "m", "2cores"} {
		if got, err := ParseCPUs(in); err == nil {
			t.Errorf("ParseCPUs(%q) = %v, nil; want an error", in, got)
		} else if !strings.Contains(err.Error(), "--cpus") {
			t.Errorf("ParseCPUs(%q) error %q does not name --cpus", in, err)
		}
	}
}

func TestParseMemory(t *testing.T) {
	good := map[string]int64{
		"512M": 512 << 20, "1G": 1 << 30, "256MiB": 256 << 20, "1073741824": 1 << 30,
		"1g": 1 << 30, "64KB": 64 << 10, "1.5G": 3 << 29, "100b": 100, "2T": 2 << 40, " 8 MiB ": 8 << 20,
	}
	for in, want := range good {
		if got, err := ParseMemory(in); err != nil || got != want {
			t.Errorf("ParseMemory(%q) = %v, %v; want %v, nil", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "-1G", "abc", "1X", "1GBB", "1Gx", "G", "1e9", "0x10", "NaN", "inf", "9999999999T", "1.5.5M", "0.0000001", "1_000"} {
		if got, err := ParseMemory(in); err == nil {
			t.Errorf("ParseMemory(%q) = %v, nil; want an error", in, got)
		} else if !strings.Contains(err.Error(), "--memory") {
			t.Errorf("ParseMemory(%q) error %q does not name --memory", in, err)
		}
	}
}

func TestBudgetValidate(t *testing.T) {
	n := float64(runtime.NumCPU())
	for _, b := range []Budget{{}, {CPUs: 0.5}, {CPUs: n}, {CPUs: MinCPUs}, {MemoryBytes: 64 << 20}, {MemoryBytes: hostMemory()}} {
		if err := b.Validate(); err != nil {
			t.Errorf("%+v.Validate() = %v; want nil", b, err)
		}
	}
	bad := []struct {
		b    Budget
		want string
	}{
		{Budget{CPUs: -1}, "--cpus must be > 0 and <= "},
		{Budget{CPUs: n + 1}, "--cpus must be > 0 and <= "},
		{Budget{CPUs: math.NaN()}, "--cpus"},
		{Budget{MemoryBytes: -5}, "--memory must be > 0"},
		{Budget{MemoryBytes: 512}, "did you mean 512M?"},
		{Budget{CPUs: math.Inf(1)}, "--cpus"},
		{Budget{CPUSet: CPUSet{4096}}, "--service-cpus 4096: CPU 4096 does not exist"},
		{Budget{CPUs: 2, CPUSet: CPUSet{0}}, "--cpus 2 is more than the 1 CPU(s) of --service-cpus 0"},
		{Budget{CPUs: 0.0001}, "--cpus 0.0001 is below the cgroup minimum of 0.01 cores"},
		{Budget{MemoryBytes: hostMemory() + 1<<30}, "is more than this machine's memory (" + FormatMemory(hostMemory()) + ")"},
	}
	for _, tc := range bad {
		if err := tc.b.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v.Validate() = %v; want an error containing %q", tc.b, err, tc.want)
		}
	}
	if got := (Budget{CPUs: -1}).Validate().Error(); !strings.HasSuffix(got, "(got -1)") {
		t.Errorf("error %q does not show the bad value as (got -1)", got)
	}
}

func FuzzParseCPUs(f *testing.F) {
	for _, s := range []string{"0.5", "2", "500m", "0", "-1", "abc", "NaN", "inf", "1e308", "0x1p-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseCPUs(s)
		if err == nil && (!(v > 0) || math.IsInf(v, 0)) {
			t.Fatalf("ParseCPUs(%q) = %v without error", s, v)
		}
	})
}

func FuzzParseMemory(f *testing.F) {
	for _, s := range []string{"512M", "1G", "256MiB", "1073741824", "1.5g", "0", "-1", "1e9", "8EiB", "9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseMemory(s)
		if err == nil && v <= 0 {
			t.Fatalf("ParseMemory(%q) = %d without error", s, v)
		}
		if err == nil {
			// A plain byte count must round-trip.
			if back, err2 := ParseMemory(strconv.FormatInt(v, 10)); err2 != nil || back != v {
				t.Fatalf("ParseMemory(%d) = %d, %v", v, back, err2)
			}
		}
	})
}
