package lab

import "perflab/internal/pgo"

// PGOProfile is the CPU profile WritePGO wrote for go build -pgo.
type PGOProfile = pgo.Profile

// ErrPGOInput is a profile go build -pgo does not take (see pgo.ErrInput).
var ErrPGOInput = pgo.ErrInput

// WritePGO merges the CPU profiles of the runs in results that the Go
// runtime recorded and writes them to path, for go build -pgo (pgo.Write).
func WritePGO(path string, results []*Result) (*PGOProfile, error) { return pgo.Write(path, results) }

// CheckPGO refuses, before any run, an experiment whose CPU profile go
// build -pgo could not take (pgo.Check).
func CheckPGO(c Config) error { return pgo.Check(c) }

// CheckPGOOutput tells whether path can take the profile before any run.
func CheckPGOOutput(path string) error { return pgo.CheckOutput(path) }
