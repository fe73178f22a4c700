package labtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// cargoTimeout bounds one cargo build: the first build of a service
// compiles its crates (2-3 minutes on 2 busy cores); later ones reuse them.
const cargoTimeout = 15 * time.Minute

// CargoBuild builds the Rust test service testdata/services/NAME with
// `cargo build --release --locked`, the way cargo builds by default (no
// frame pointers, no debug information) or, with framePointers, with
// RUSTFLAGS="-C force-frame-pointers=yes", and returns the binary's path.
// Each variant has a target directory of its own under the user's cache
// directory (CargoTargetDir), shared by every test run and by .ci/setup,
// which builds both ahead, so the crates compile once per machine. It
// skips the test when cargo is not installed.
func CargoBuild(t testing.TB, name string, framePointers bool) string {
	t.Helper()
	cargo := NeedCargo(t)
	target, err := CargoTargetDir(name, framePointers)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cargoTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cargo, "build", "--release", "--locked", "--quiet")
	cmd.Dir = filepath.Join(servicesDir(t), name)
	cmd.Env = append(os.Environ(), "CARGO_TARGET_DIR="+target, "RUSTFLAGS=")
	if framePointers {
		cmd.Env = append(cmd.Env, "RUSTFLAGS=-C force-frame-pointers=yes")
	}
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cargo build --release of testdata/services/%s (%v): %v\n%s", name, time.Since(start).Round(time.Second), err, out)
	}
	bin := filepath.Join(target, "release", name)
	if !executable(bin) {
		t.Fatalf("cargo build of testdata/services/%s made no %s", name, bin)
	}
	return bin
}

// CargoTargetDir is where CargoBuild builds the Rust test service name:
// $XDG_CACHE_HOME/perflab-cargo/NAME (else ~/.cache/...), and NAME-fp
// for the build with frame pointers.
func CargoTargetDir(name string, framePointers bool) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	if framePointers {
		name += "-fp"
	}
	return filepath.Join(cache, "perflab-cargo", name), nil
}

// servicesDir is the repository's testdata/services, found from this
// file's place in the source tree.
func servicesDir(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("labtest: cannot locate the source tree")
	}
	dir := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "services")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("labtest: the test services: %v", err)
	}
	return dir
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
