package capture

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"perflab/internal/files"
)

// perfOutput is the file perf record writes and perf script reads. Where
// the file system allows it, it has no name (O_TMPFILE): it exists while
// perflab or perf holds it open, so a perflab killed with SIGKILL leaves
// nothing behind (perf gets SIGKILL with it, see diesWithPerflab).
// Elsewhere it is kind.data in a temporary directory that records its
// owner, which the next perflab removes once its owner is gone
// (files.RemoveStale).
type perfOutput struct {
	file *os.File // the unnamed file, or nil
	dir  string   // the named file's directory
	path string   // the named file
}

// namedPerfData makes perfOutput use a named file even where it need not
// (tests of the named file's clean-up).
var namedPerfData = false

func newPerfOutput(kind string) (*perfOutput, error) {
	if !namedPerfData {
		if f, err := files.UnnamedTemp(kind + ".data"); err == nil {
			return &perfOutput{file: f}, nil
		}
	}
	dir, err := files.TempDir("perflab-" + kind + "-")
	if err != nil {
		return nil, err
	}
	return &perfOutput{dir: dir, path: filepath.Join(dir, kind+".data")}, nil
}

// arg is the path perf is given: the named file, or the descriptor perf
// opens the unnamed one through (/proc/self/fd/N), the output being its
// extra file after the before others.
func (o *perfOutput) arg(before int) string {
	if o.file == nil {
		return o.path
	}
	return "/proc/self/fd/" + strconv.Itoa(3+before)
}

// extraFiles are the files perf inherits for the output.
func (o *perfOutput) extraFiles() []*os.File {
	if o.file == nil {
		return nil
	}
	return []*os.File{o.file}
}

// command is perf (name with args) writing to o: stopped with SIGINT
// when ctx ends, so that it writes what it recorded, and killed 5 s
// later; its stderr's last 8 KiB are kept in the tail returned.
func (o *perfOutput) command(ctx context.Context, name string, args []string) (*exec.Cmd, *files.Tail) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.ExtraFiles = o.extraFiles()
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = 5 * time.Second
	stderr := files.NewTail(8 << 10)
	cmd.Stderr = stderr
	return cmd, stderr
}

// wrote says whether perf wrote data.
func (o *perfOutput) wrote() bool {
	var st os.FileInfo
	var err error
	if o.file != nil {
		st, err = o.file.Stat()
	} else {
		st, err = os.Stat(o.path)
	}
	return err == nil && st.Size() > 0
}

func (o *perfOutput) close() {
	if o.file != nil {
		o.file.Close()
	}
	if o.dir != "" {
		os.RemoveAll(o.dir)
	}
}

// diesWithPerflab makes cmd get sig when perflab dies, whatever killed
// it, so a perf perflab no longer reads stops sampling and lets go of its
// output. perf record is sent SIGTERM: it then stops its workload (sleep
// SECONDS) itself, which SIGKILL would leave running; perf script, which
// has no workload, SIGKILL. The signal follows the thread that starts
// cmd: the caller keeps its goroutine on that thread
// (runtime.LockOSThread) until cmd ends, so no goroutine that exits while
// locked takes the thread with it.
func diesWithPerflab(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = sig
}
