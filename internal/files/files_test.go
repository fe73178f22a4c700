package files

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestOpenRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "run.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFile(fifo, 1<<20); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a FIFO") {
			t.Errorf("ReadFile(FIFO) = %v; want ErrNotRegular naming a FIFO", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadFile(FIFO) blocked")
	}
	if _, err := ReadFile(dir, 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(directory) = %v; want ErrNotRegular", err)
	}
	if _, err := ReadFile("/dev/zero", 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(/dev/zero) = %v; want ErrNotRegular", err)
	}
}

func TestReadFileBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(path, make([]byte, 3000), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path, 2048); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "2.0 KiB") {
		t.Errorf("ReadFile(3000 bytes, max 2 KiB) = %v; want ErrTooLarge with the limit", err)
	}
	if b, err := ReadFile(path, 3000); err != nil || len(b) != 3000 {
		t.Errorf("ReadFile(3000 bytes, max 3000) = %d bytes, %v", len(b), err)
	}
	r := LimitReader(strings.NewReader(strings.Repeat("x", 100)), 10, "stream")
	if _, err := io.ReadAll(r); !errors.Is(err, ErrTooLarge) {
		t.Errorf("LimitReader past its limit: %v", err)
	}
	if b, err := io.ReadAll(LimitReader(strings.NewReader("0123456789"), 10, "s")); err != nil || string(b) != "0123456789" {
		t.Errorf("LimitReader at exactly its limit = %q, %v", b, err)
	}
}

// TestWriteAtomicDestroysNothing: a failed write leaves the old content, a
// non-file is refused and left in place, a symbolic link keeps pointing at
// the new content, and no temporary file stays behind.
func TestWriteAtomicDestroysNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.html")
	if err := WriteFile(path, []byte("old")); err != nil {
		t.Fatal(err)
	}
	err := WriteAtomic(path, func(w io.Writer) error {
		w.Write([]byte("half of the new"))
		return errors.New("disk full")
	})
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("WriteAtomic with a failing writer = %v; want an error naming %s", err, path)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("after a failed write the file holds %q; want the old content", b)
	}
	for _, target := range []string{"/dev/null", dir} {
		if err := WriteFile(target, []byte("x")); !errors.Is(err, ErrNotRegular) {
			t.Errorf("WriteFile(%s) = %v; want ErrNotRegular", target, err)
		}
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v %v", st, err)
	}
	link := filepath.Join(dir, "link.html")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("writing through a link: target holds %q", b)
	}
	if l, err := os.Lstat(link); err != nil || l.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", l, err)
	}
	if err := WriteFile(filepath.Join(dir, "missing-dir", "x"), []byte("x")); err == nil {
		t.Error("WriteFile into a missing directory: no error")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// TestCheckOutput refuses, before any work, an output that cannot be
// written as a file: empty, under a file, a device, a directory.
func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, bad := range []string{"", filepath.Join(file, "x"), "/dev/full", dir} {
		if err := CheckOutput(bad); err == nil {
			t.Errorf("CheckOutput(%q): no error", bad)
		}
	}
	for _, good := range []string{file, filepath.Join(dir, "new")} {
		if err := CheckOutput(good); err != nil {
			t.Errorf("CheckOutput(%q) = %v", good, err)
		}
	}
}
