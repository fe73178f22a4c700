package capture

import (
	"bufio"
	"io"
	"sort"
	"strconv"
	"strings"

	"perflab/internal/files"
)

// maxPerfMapBytes bounds how much of one perf map file is read.
const maxPerfMapBytes = 256 << 20

// jitMaps names frames in JIT code from the perf map files
// (/tmp/perf-PID.map) with the entry written last for an address. A JIT
// reuses addresses: V8 frees and compacts code, and node
// --perf-basic-prof appends a line per compiled function without removing
// the old ones, so the map holds overlapping entries, of which perf picks
// any; the last one written is the code that ran at the end of the window.
// The zero value is ready; a nil *jitMaps resolves nothing.
type jitMaps struct {
	files map[string]*perfMap
}

type perfMap struct {
	entries []perfMapEntry // by start address
	maxSize uint64
	cache   map[uint64]string
}

type perfMapEntry struct {
	start, end uint64
	seq        int // line number: later lines win
	name       string
}

// resolve renames a frame of a perf map from the map's last entry holding
// its address, then reads V8's name (see jitFrame).
func (j *jitMaps) resolve(f frame) frame {
	if !isPerfMap(f.dso) {
		return f
	}
	if j != nil && f.addr != 0 {
		if name := j.lookup(f.dso, f.addr); name != "" {
			f.name = name
		}
	}
	return jitFrame(f)
}

func (j *jitMaps) lookup(path string, addr uint64) string {
	if j.files == nil {
		j.files = map[string]*perfMap{}
	}
	m, ok := j.files[path]
	if !ok {
		m = readPerfMap(path)
		j.files[path] = m
	}
	if m == nil {
		return ""
	}
	if name, ok := m.cache[addr]; ok {
		return name
	}
	// Entries starting at or below addr, scanned down while one of them
	// could still reach it.
	i := sort.Search(len(m.entries), func(i int) bool { return m.entries[i].start > addr })
	best := -1
	for k := i - 1; k >= 0 && m.entries[k].start+m.maxSize > addr; k-- {
		e := &m.entries[k]
		if addr < e.end && (best < 0 || e.seq > m.entries[best].seq) {
			best = k
		}
	}
	name := ""
	if best >= 0 {
		name = m.entries[best].name
	}
	m.cache[addr] = name
	return name
}

// readPerfMap reads "START SIZE NAME" lines (hexadecimal start and size);
// nil when the file cannot be read.
func readPerfMap(path string) *perfMap {
	f, err := files.Open(path, 0) // in /tmp: refuse a FIFO planted there (the scan below is bounded)
	if err != nil {
		return nil
	}
	defer f.Close()
	m := &perfMap{cache: map[uint64]string{}}
	sc := bufio.NewScanner(io.LimitReader(f, maxPerfMapBytes))
	sc.Buffer(make([]byte, 64<<10), maxPerfLine)
	for seq := 0; sc.Scan(); seq++ {
		start, rest, ok := strings.Cut(sc.Text(), " ")
		size, name, ok2 := strings.Cut(rest, " ")
		if !ok || !ok2 {
			continue
		}
		// node writes bare hexadecimal, the JVM's Compiler.perfmap 0x-prefixed.
		a, err1 := strconv.ParseUint(strings.TrimPrefix(start, "0x"), 16, 64)
		n, err2 := strconv.ParseUint(strings.TrimPrefix(size, "0x"), 16, 64)
		if err1 != nil || err2 != nil || n == 0 {
			continue
		}
		m.entries = append(m.entries, perfMapEntry{start: a, end: a + n, seq: seq, name: name})
		m.maxSize = max(m.maxSize, n)
	}
	sort.SliceStable(m.entries, func(i, k int) bool { return m.entries[i].start < m.entries[k].start })
	return m
}
