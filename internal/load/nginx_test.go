//go:build linux

package load

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// startNginx serves dir on a free loopback port with Debian's nginx, or
// skips the test when nginx is not installed.
func startNginx(t *testing.T, dir string) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		bin = labtest.NeedFile(t, "nginx", "/usr/sbin/nginx", "")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	work := t.TempDir()
	conf := fmt.Sprintf(`user root;
worker_processes 1;
daemon off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path %[1]s;
  proxy_temp_path %[1]s;
  fastcgi_temp_path %[1]s;
  uwsgi_temp_path %[1]s;
  scgi_temp_path %[1]s;
  server { listen %[2]s; root %[3]s; keepalive_requests 100000; }
}
`, work, addr, dir)
	confPath := filepath.Join(work, "nginx.conf")
	os.WriteFile(confPath, []byte(conf), 0o644)
	cmd := exec.Command(bin, "-c", confPath, "-p", work)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopNginx(t, cmd) })
	if !labtest.Until(10*time.Second, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}) {
		b, _ := os.ReadFile(filepath.Join(work, "error.log"))
		t.Fatalf("nginx did not start: %s", b)
	}
	return "http://" + addr
}

// stopNginx asks the master for a fast shutdown, which stops its workers
// too; killing the master alone would leave its worker running. If the
// master has not exited within 5s, the whole process group is killed.
func stopNginx(t *testing.T, cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Errorf("nginx still running 5s after SIGTERM: killing its process group")
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	// The group must empty (init reaps what the master left): no worker
	// outlives the test.
	if !labtest.Until(time.Second, func() bool { return syscall.Kill(-cmd.Process.Pid, 0) != nil }) {
		t.Errorf("nginx workers still running 1s after the master exited")
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

func TestAgainstNginx(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("hello, world\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "big.bin"), []byte(strings.Repeat("z", 1<<20)), 0o644)
	base := startNginx(t, dir)
	forEachEngine(t, func(t *testing.T, engine string) {
		r := attack(t, Config{engine: engine, Targets: target(t, base+"/index.html"), Concurrency: 8, Requests: 2000})
		if r.Errors != 0 || r.Status["200"] != 2000 || r.BytesIn != 2000*13 {
			t.Errorf("small file: errors %v, status %v, bytes %d", r.ErrorSamples, r.Status, r.BytesIn)
		}
		r = attack(t, Config{engine: engine, Targets: target(t, base+"/big.bin"), Concurrency: 2, Requests: 50})
		if r.Errors != 0 || r.BytesIn != 50<<20 {
			t.Errorf("1 MiB file: errors %v, bytes %d", r.ErrorSamples, r.BytesIn)
		}
		r = attack(t, Config{engine: engine, Targets: target(t, base+"/missing"), Concurrency: 2, Requests: 20})
		if r.Status["404"] != 20 || r.ErrorKinds[KindStatus4xx] != 20 {
			t.Errorf("404: status %v errors %v; want 20 404s, each an error of kind %s", r.Status, r.ErrorKinds, KindStatus4xx)
		}
		r = attack(t, Config{engine: engine, Targets: target(t, base+"/index.html"), Rate: 500, Duration: time.Second})
		if r.Errors != 0 || r.Requests != 500 {
			t.Errorf("open model: requests %d errors %v", r.Requests, r.ErrorSamples)
		}
	})
}
