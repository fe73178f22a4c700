package capture

import "errors"

// Sentinel errors wrapped by this package's errors; test them with errors.Is.
var (
	// ErrNoEndpoint means the address answered but serves no net/http/pprof
	// endpoint there (404, an HTML page, nothing listening).
	ErrNoEndpoint = errors.New("no net/http/pprof endpoint")
	// ErrTimeout means a profile request did not complete in its time limit.
	ErrTimeout = errors.New("timed out")
	// ErrToolMissing means an external profiler (perf, py-spy, rbspy) is not
	// installed; the message says how to install it.
	ErrToolMissing = errors.New("profiler not installed")
	// ErrNotPermitted means the kernel or the target refused profiling.
	ErrNotPermitted = errors.New("profiling not permitted")
	// ErrProcessGone means the process to profile does not exist (any more).
	ErrProcessGone = errors.New("process not found")
)

// missingTool is a profiler that is not installed: msg names it and how
// to install it, and errors.Is matches ErrToolMissing.
type missingTool struct{ msg string }

func (m *missingTool) Error() string        { return m.msg }
func (m *missingTool) Is(target error) bool { return target == ErrToolMissing }
