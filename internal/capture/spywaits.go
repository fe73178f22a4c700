package capture

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/files"
	"perflab/internal/runfmt"
)

// A sampler that reads stacks out of a process's memory (py-spy, rbspy)
// decides whether a thread is working from its state as the kernel shows
// it, read apart from the stack and without pausing the process: a thread
// that blocks in time.sleep, recv, select or Condition.wait a moment after
// it was seen running, or that was woken and waits for a CPU, is sampled
// with its waiting stack as if it worked (py-spy's own heuristic for idle
// threads is used only where it cannot read the state). Such samples are
// waits, not CPU: DropWaits takes them out of the CPU profile, so the
// profile's functions own only CPU, and the wall-time split (which counts
// every stack off the CPU profile as a wait) charges them to the wait
// they are. An idle pool thread's stack (a worker blocked in queue.get,
// no user code) ends in such a wait too.

// WaitSamples is what DropWaits took out of a CPU profile: samples, by the
// wait they were.
type WaitSamples map[runfmt.Wait]int64

// Total is the samples taken out.
func (w WaitSamples) Total() int64 {
	var n int64
	for _, c := range w {
		n += c
	}
	return n
}

// String says what was taken out, most first: "52 sleep, 48 downstream".
func (w WaitSamples) String() string {
	keys := slices.SortedFunc(maps.Keys(w), func(a, b runfmt.Wait) int {
		if w[a] != w[b] {
			return int(w[b] - w[a])
		}
		return strings.Compare(string(a), string(b))
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", w[k], k)
	}
	return strings.Join(parts, ", ")
}

// DropWaits removes from a py-spy or rbspy CPU profile the samples whose
// innermost frame waits (see leafWait), and returns them by wait. line
// returns the text of a file's line ("" when unknown): a wait in C (a
// Python time.sleep or recv, a Ruby C function whose name rbspy could not
// read) shows as the calling frame, at the line of the call.
func DropWaits(p *profile.Profile, line func(file string, n int64) string) WaitSamples {
	dropped := WaitSamples{}
	if p == nil || len(p.SampleType) == 0 {
		return dropped
	}
	kept := p.Sample[:0]
	for _, s := range p.Sample {
		if w, ok := sampleWait(s, line); ok {
			dropped[w] += s.Value[0]
			continue
		}
		kept = append(kept, s)
	}
	clear(p.Sample[len(kept):])
	p.Sample = kept
	if len(dropped) > 0 {
		p.Comments = append(p.Comments, fmt.Sprintf("perflab: %d samples of waiting threads taken out (%s)", dropped.Total(), dropped))
	}
	return dropped
}

// sampleWait is the wait a sample's innermost frames are in, if any.
func sampleWait(s *profile.Sample, line func(string, int64) string) (runfmt.Wait, bool) {
	var frames []profile.Line
	for _, loc := range s.Location {
		frames = append(frames, loc.Line...) // innermost first, its inlining callers after

		if len(frames) >= 2 {
			break
		}
	}
	if len(frames) == 0 || frames[0].Function == nil {
		return "", false
	}
	return leafWait(frames, line)
}

// leafWait classifies the innermost frame (frames[0]; frames[1] is its
// caller, when known): a wait of the standard library's Python code, a
// Ruby C function that waits, or a call that waits on the frame's line.
func leafWait(frames []profile.Line, line func(string, int64) string) (runfmt.Wait, bool) {
	f := frames[0].Function
	name, file := f.Name, f.Filename
	if c, ok := strings.CutPrefix(name, "[c function]"); ok {
		if c = strings.TrimSpace(c); c != "" {
			w, ok := rubyWaits[lastName(c)]
			return w, ok
		}
		if len(frames) < 2 || frames[1].Function == nil {
			return "", false
		}
		// A C function rbspy could not name: the Ruby line calling it.
		return lineWait(rubyWaitLines, line(frames[1].Function.Filename, frames[1].Line))
	}
	if ws, ok := pyModuleWaits[path.Base(file)]; ok {
		if w, ok := ws[lastName(name)]; ok {
			return w, true
		}
	}
	if strings.HasSuffix(file, ".rb") || strings.HasPrefix(file, "<internal:") {
		if w, ok := rubyWaits[lastName(name)]; ok && strings.HasPrefix(file, "<internal:") {
			return w, true
		}
		return "", false
	}
	if line == nil {
		return "", false
	}
	return lineWait(pyWaitLines, line(file, frames[0].Line))
}

// lastName is a qualified name's last part: "Condition.wait" → "wait",
// "Thread::Queue#pop" → "pop".
func lastName(name string) string {
	if i := strings.LastIndexAny(name, ".#"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// pyModuleWaits are, per standard-library file, the functions that wait
// when they are the innermost frame (they block in C below).
var pyModuleWaits = map[string]map[string]runfmt.Wait{
	"threading.py":  {"wait": runfmt.WaitCond, "wait_for": runfmt.WaitCond, "acquire": runfmt.WaitLock, "join": runfmt.WaitLock, "_wait_for_tstate_lock": runfmt.WaitLock},
	"selectors.py":  {"select": runfmt.WaitDownstream},
	"queue.py":      {"get": runfmt.WaitChannel, "put": runfmt.WaitChannel},
	"socket.py":     {"accept": runfmt.WaitDownstream, "readinto": runfmt.WaitDownstream, "create_connection": runfmt.WaitDownstream},
	"ssl.py":        {"read": runfmt.WaitDownstream, "recv": runfmt.WaitDownstream, "recv_into": runfmt.WaitDownstream, "do_handshake": runfmt.WaitDownstream},
	"subprocess.py": {"wait": runfmt.WaitSyscall, "_wait": runfmt.WaitSyscall, "_try_wait": runfmt.WaitSyscall, "communicate": runfmt.WaitSyscall},
	"_base.py":      {"result": runfmt.WaitCond, "wait": runfmt.WaitCond, "as_completed": runfmt.WaitCond},
	"connection.py": {"_recv": runfmt.WaitDownstream, "_poll": runfmt.WaitDownstream, "wait": runfmt.WaitDownstream},
}

// rubyWaits are Ruby methods (C functions or thread_sync's) that wait.
var rubyWaits = map[string]runfmt.Wait{
	"sleep": runfmt.WaitSleep, "select": runfmt.WaitDownstream, "wait_readable": runfmt.WaitDownstream,
	"wait_writable": runfmt.WaitDownstream, "accept": runfmt.WaitDownstream, "readpartial": runfmt.WaitDownstream,
	"gets": runfmt.WaitDownstream, "sysread": runfmt.WaitDownstream, "recv": runfmt.WaitDownstream,
	"wait": runfmt.WaitCond, "lock": runfmt.WaitLock, "join": runfmt.WaitLock, "value": runfmt.WaitLock,
	"pop": runfmt.WaitChannel, "deq": runfmt.WaitChannel, "shift": runfmt.WaitChannel,
}

// waitCall is a call on a source line that waits.
type waitCall struct {
	re   *regexp.Regexp
	wait runfmt.Wait
}

// pyWaitLines are calls into C that block: a sleep, a socket's receive or
// accept, a poll with a timeout, a lock, a thread's join, a queue's get.
var pyWaitLines = []waitCall{
	{regexp.MustCompile(`(^|[^\w])sleep\(`), runfmt.WaitSleep},
	{regexp.MustCompile(`\.(recv|recv_into|recvfrom|recvmsg|accept)\(`), runfmt.WaitDownstream},
	{regexp.MustCompile(`(\bselect\.select|\.select|\.poll|\.epoll|\.kevent)\((\w|$)`), runfmt.WaitDownstream},
	{regexp.MustCompile(`\.(acquire|wait)\(`), runfmt.WaitLock},
	// A thread's join takes nothing or a timeout; a string's join
	// ("\n".join(rows)) or os.path.join takes what it joins: CPU.
	{regexp.MustCompile(`\.join\(\s*(\)|timeout\b|[\d.]+\s*\))`), runfmt.WaitLock},
	{regexp.MustCompile(`\.get\(\s*(\)|block|timeout)`), runfmt.WaitChannel},
}

// rubyWaitLines are calls on a Ruby line that wait (for a C function
// rbspy could not name).
var rubyWaitLines = []waitCall{
	{regexp.MustCompile(`(^|[^\w.])sleep\b`), runfmt.WaitSleep},
	{regexp.MustCompile(`\bIO\.select\b|\.(wait_readable|wait_writable|accept|readpartial|gets|sysread|recv)\b`), runfmt.WaitDownstream},
	{regexp.MustCompile(`\.(wait|join|lock)\b`), runfmt.WaitLock},
	{regexp.MustCompile(`\.(pop|deq|shift)\b`), runfmt.WaitChannel},
}

// nonBlocking is a poll or select with a zero timeout: it returns at once.
var nonBlocking = regexp.MustCompile(`\.(poll|select)\(\s*0(\.0)?\s*\)|,\s*0(\.0)?\s*\)\s*$`)

func lineWait(rules []waitCall, text string) (runfmt.Wait, bool) {
	text = strings.TrimSpace(text)
	if text == "" || strings.HasPrefix(text, "#") || nonBlocking.MatchString(text) {
		return "", false
	}
	for _, r := range rules {
		if r.re.MatchString(text) {
			return r.wait, true
		}
	}
	return "", false
}

// sourceLines reads lines of the files a profile names, each file once
// and at most maxSourceBytes of it.
type sourceLines struct{ files map[string][]string }

// maxSourceBytes bounds the source file read for one profile's lines.
const maxSourceBytes = 4 << 20

func newSourceLines() *sourceLines { return &sourceLines{files: map[string][]string{}} }

// line is the text of file's line n, "" when it cannot be read.
func (sl *sourceLines) line(file string, n int64) string {
	if !path.IsAbs(file) || n <= 0 {
		return ""
	}
	lines, ok := sl.files[file]
	if !ok {
		if b, err := files.ReadFile(file, maxSourceBytes); err == nil {
			lines = strings.Split(string(b), "\n")
		}
		sl.files[file] = lines
	}
	if int(n) > len(lines) {
		return ""
	}
	return lines[n-1]
}
