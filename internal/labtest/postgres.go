package labtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// postgresTimeout bounds each of initdb, the server's start and its stop.
const postgresTimeout = 90 * time.Second

// Postgres starts a throwaway PostgreSQL server from Debian's postgresql
// package (/usr/lib/postgresql/VERSION/bin) on a free loopback port, its
// data in a new temporary directory, with durability off (fsync) and
// local connections trusted, and returns its DSN,
// postgresql://perflab@127.0.0.1:PORT/postgres. Run as root, the server
// runs as the postgres user (it refuses to run as root). It is stopped and
// its directory removed when the test ends. It skips the test when the
// server is not installed. initdb takes 2-5 s, the start under a second.
func Postgres(t testing.TB) string {
	t.Helper()
	initdbs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(initdbs) == 0 {
		SkipMissing(t, "postgresql", "no PostgreSQL server: /usr/lib/postgresql/*/bin/initdb not found (.ci/setup installs Debian's postgresql)")
	}
	slices.SortFunc(initdbs, func(a, b string) int { return pgVersion(a) - pgVersion(b) })
	bin := filepath.Dir(initdbs[len(initdbs)-1])
	dir, err := os.MkdirTemp("", "perflab-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cred := postgresUser(t, dir)
	run := func(name string, args ...string) error {
		ctx, cancel := context.WithTimeout(context.Background(), postgresTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, filepath.Join(bin, name), args...)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return nil
	}
	data := filepath.Join(dir, "data")
	if err := run("initdb", "-D", data, "-A", "trust", "-U", "perflab", "-E", "UTF8", "--no-sync"); err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(FreeAddr(t), ":")
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %s -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off", port, dir)
	if err := run("pg_ctl", "-D", data, "-l", filepath.Join(dir, "server.log"), "-w", "-t", "60", "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		t.Fatalf("%v\nserver.log: %s", err, log)
	}
	t.Cleanup(func() {
		if err := run("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"); err != nil {
			t.Errorf("stopping PostgreSQL: %v", err)
		}
	})
	return "postgresql://perflab@127.0.0.1:" + port + "/postgres"
}

// pgVersion is VERSION of /usr/lib/postgresql/VERSION/bin/initdb (15), or 0.
func pgVersion(initdb string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return v
}

// postgresUser returns the credential the server runs with: the postgres
// user's, owning dir, when the test runs as root; nil (the test's own)
// otherwise.
func postgresUser(t testing.TB, dir string) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		SkipMissing(t, "postgresql", fmt.Sprintf("PostgreSQL refuses to run as root, and there is no postgres user to run it as (Debian's postgresql package makes it): %v", err))
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		t.Fatalf("user postgres: uid %q gid %q", u.Uid, u.Gid)
	}
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}
