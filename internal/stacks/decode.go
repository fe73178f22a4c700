package stacks

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/google/pprof/profile"

	"perflab/internal/files"
	"perflab/internal/runfmt"
)

// This file is a lean, streaming decoder of the pprof protocol buffer
// (profile.proto) that reads only what the top table needs: sample values and
// location ids, locations' lines, function and mapping names, the string
// table and the sample types. It exists because profile.Parse materialises
// every sample, label and location as Go objects after holding the whole
// decompressed file in memory; on a profile with hundreds of thousands of
// samples that costs more time and memory than the analysis itself. Here
// samples are merged by stack while the file streams through gzip, so memory
// grows with the number of distinct stacks, not samples. Anything it does not
// understand is an error, and TopFile then falls back to profile.Parse (which
// also reads legacy text formats); decode_test.go checks both agree.

// Field numbers of profile.proto.
const (
	fProfileSampleType    = 1
	fProfileSample        = 2
	fProfileMapping       = 3
	fProfileLocation      = 4
	fProfileFunction      = 5
	fProfileStringTable   = 6
	fProfileDropFrames    = 7
	fProfileKeepFrames    = 8
	fProfileTimeNanos     = 9
	fProfileDurationNanos = 10
	fProfilePeriodType    = 11
	fProfilePeriod        = 12
	fProfileComment       = 13
	fProfileDefaultType   = 14
)

// ReadFile decodes the profile file at path at function or line
// granularity, falling back to profile.Parse for inputs it does not handle.
// It reads regular files of at most runfmt.MaxProfileBytes, inflating to at
// most runfmt.MaxProfileDecodedBytes.
func ReadFile(path string, lines bool) (*Set, error) {
	f, err := files.Open(path, runfmt.MaxProfileBytes)
	if err != nil {
		return nil, fmt.Errorf("reading profile: %w", err)
	}
	defer f.Close()
	s, lerr := Read(f, lines)
	if lerr == nil {
		return s, nil
	}
	if errors.Is(lerr, files.ErrTooLarge) {
		return nil, fmt.Errorf("reading profile %s: %w", path, lerr)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("reading profile %s: %w", path, err)
	}
	p, err := parseBounded(f)
	if err != nil {
		return nil, fmt.Errorf("reading profile %s: %w", path, err)
	}
	if lines {
		return FromProfileLines(p), nil
	}
	return FromProfile(p), nil
}

// ReadProfileFile parses the profile file at path as profile.Parse does,
// reading a regular file of at most runfmt.MaxProfileBytes and inflating it
// to at most runfmt.MaxProfileDecodedBytes.
func ReadProfileFile(path string) (*profile.Profile, error) {
	f, err := files.Open(path, runfmt.MaxProfileBytes)
	if err != nil {
		return nil, fmt.Errorf("reading profile: %w", err)
	}
	defer f.Close()
	p, err := parseBounded(f)
	if err != nil {
		return nil, fmt.Errorf("reading profile %s: %w", path, err)
	}
	return p, nil
}

// parseBounded is profile.Parse with the decompressed size bounded (Parse
// would inflate a gzip bomb without limit).
func parseBounded(r io.Reader) (*profile.Profile, error) {
	br := bufio.NewReader(r)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("decompressing profile: %w", err)
		}
		return profile.Parse(files.LimitReader(gz, runfmt.MaxProfileDecodedBytes, "decompressed profile"))
	}
	return profile.Parse(br)
}

// Read decodes a profile (gzipped or not) at function or line granularity
// with the lean decoder; lines selects line granularity.
func Read(r io.Reader, lines bool) (*Set, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("decompressing profile: %w", err)
		}
		pr := newPrefetchReader(files.LimitReader(gz, runfmt.MaxProfileDecodedBytes, "decompressed profile"))
		defer pr.stop()
		br = bufio.NewReaderSize(pr, 256<<10)
	}
	d := &leanDecoder{stackIdx: map[string]int32{}, lines: lines}
	if err := d.run(br); err != nil {
		return nil, fmt.Errorf("decoding profile: %w", err)
	}
	return d.finish()
}

var errBadProto = errors.New("malformed protocol buffer")

// leanDecoder accumulates the raw profile while it streams.
type leanDecoder struct {
	strs        []string
	sampleTypes [][2]int64
	periodType  [2]int64
	period      int64
	duration    int64
	timeNanos   int64
	defaultType int64
	dropFrames  int64
	keepFrames  int64
	comments    []int64
	lines       bool // line granularity

	// Samples merged by location-id stack: the map key is the stack's
	// location ids as varints (decoded again in finish, so the ids are not
	// stored twice) and the value indexes vals.
	stackIdx map[string]int32
	keys     []string // the map's keys in first-seen order, for determinism
	vals     []int64
	nv       int
	key      []byte
	ids      []uint64
	sv       []int64

	locs     []rawLocation
	locLines []rawLine // the locations' lines, see rawLocation
	funcs    []rawFunction
	maps     map[uint64]int64 // mapping id -> filename string index
	buf      []byte
}

// rawLocation is a location: its id, mapping, and its lines, which are
// locLines[off : off+n] (one slice for all, not one per location: a large
// profile has millions of locations).
type rawLocation struct {
	id, mapping uint64
	off, n      int32
}

// rawLine is one Line of a location: its function and line number.
type rawLine struct {
	fid  uint64
	line int64
}

type rawFunction struct {
	id                uint64
	name, file, start int64
}

// run reads the top-level fields of the Profile message.
func (d *leanDecoder) run(br *bufio.Reader) error {
	for {
		tag, err := binary.ReadUvarint(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		field, wire := tag>>3, tag&7
		switch wire {
		case 0:
			v, err := binary.ReadUvarint(br)
			if err != nil {
				return unexpected(err)
			}
			d.scalar(field, v)
		case 1, 5:
			n := 8
			if wire == 5 {
				n = 4
			}
			if _, err := br.Discard(n); err != nil {
				return unexpected(err)
			}
		case 2:
			if err := d.message(br, field); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%w: wire type %d", errBadProto, wire)
		}
	}
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (d *leanDecoder) scalar(field, v uint64) {
	switch field {
	case fProfileDurationNanos:
		d.duration = int64(v)
	case fProfileTimeNanos:
		d.timeNanos = int64(v)
	case fProfilePeriod:
		d.period = int64(v)
	case fProfileDefaultType:
		d.defaultType = int64(v)
	case fProfileDropFrames:
		d.dropFrames = int64(v)
	case fProfileKeepFrames:
		d.keepFrames = int64(v)
	case fProfileComment:
		d.comments = append(d.comments, int64(v))
	}
}

// message reads one length-delimited top-level field.
func (d *leanDecoder) message(br *bufio.Reader, field uint64) error {
	n, err := binary.ReadUvarint(br)
	if err != nil {
		return unexpected(err)
	}
	if n > 1<<30 {
		return fmt.Errorf("%w: field of %d bytes", errBadProto, n)
	}
	switch field {
	case fProfileSampleType, fProfileSample, fProfileMapping, fProfileLocation,
		fProfileFunction, fProfileStringTable, fProfilePeriodType, fProfileComment:
	default:
		_, err := br.Discard(int(n))
		return unexpected(err)
	}
	b, err := d.readField(br, int(n))
	if err != nil {
		return err
	}
	switch field {
	case fProfileSampleType:
		vt, err := parseValueType(b)
		d.sampleTypes = append(d.sampleTypes, vt)
		return err
	case fProfilePeriodType:
		vt, err := parseValueType(b)
		d.periodType = vt
		return err
	case fProfileSample:
		return d.sample(b)
	case fProfileMapping:
		return d.mapping(b)
	case fProfileLocation:
		return d.location(b)
	case fProfileFunction:
		return d.function(b)
	case fProfileComment: // packed
		it := fieldIter{b: b, wire: 2, data: b}
		ids, err := it.uvarints(nil)
		for _, v := range ids {
			d.comments = append(d.comments, int64(v))
		}
		return err
	default:
		d.strs = append(d.strs, string(b))
		return nil
	}
}

// readField reads a field's n bytes into d.buf, growing it as the bytes
// arrive rather than by the declared length: a few bytes that declare a
// 1 GiB field are a short file, not 1 GiB to allocate.
func (d *leanDecoder) readField(br *bufio.Reader, n int) ([]byte, error) {
	const step = 1 << 20
	d.buf = d.buf[:0]
	for len(d.buf) < n {
		start := len(d.buf)
		d.buf = slices.Grow(d.buf, min(n-start, step))[:start+min(n-start, step)]
		if _, err := io.ReadFull(br, d.buf[start:]); err != nil {
			return nil, unexpected(err)
		}
	}
	return d.buf, nil
}

// fieldIter walks the fields of an embedded message.
type fieldIter struct {
	b     []byte
	field uint64
	wire  uint64
	v     uint64 // varint value
	data  []byte // length-delimited payload
	err   error
}

func (it *fieldIter) next() bool {
	if len(it.b) == 0 || it.err != nil {
		return false
	}
	tag, n := binary.Uvarint(it.b)
	if n <= 0 {
		it.err = errBadProto
		return false
	}
	it.b = it.b[n:]
	it.field, it.wire = tag>>3, tag&7
	switch it.wire {
	case 0:
		it.v, n = binary.Uvarint(it.b)
		if n <= 0 {
			it.err = errBadProto
			return false
		}
		it.b = it.b[n:]
	case 1, 5:
		size := 8
		if it.wire == 5 {
			size = 4
		}
		if len(it.b) < size {
			it.err = errBadProto
			return false
		}
		it.b = it.b[size:]
	case 2:
		l, n := binary.Uvarint(it.b)
		if n <= 0 || l > uint64(len(it.b)-n) {
			it.err = errBadProto
			return false
		}
		it.data = it.b[n : n+int(l)]
		it.b = it.b[n+int(l):]
	default:
		it.err = fmt.Errorf("%w: wire type %d", errBadProto, it.wire)
		return false
	}
	return true
}

// uvarints appends the varint value or the packed varints of the field.
func (it *fieldIter) uvarints(dst []uint64) ([]uint64, error) {
	if it.wire == 0 {
		return append(dst, it.v), nil
	}
	if it.wire != 2 {
		return dst, errBadProto
	}
	for b := it.data; len(b) > 0; {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return dst, errBadProto
		}
		dst = append(dst, v)
		b = b[n:]
	}
	return dst, nil
}

func parseValueType(b []byte) ([2]int64, error) {
	var vt [2]int64
	it := fieldIter{b: b}
	for it.next() {
		if it.wire == 0 && (it.field == 1 || it.field == 2) {
			vt[it.field-1] = int64(it.v)
		}
	}
	return vt, it.err
}

// sample merges one Sample message into the stack it belongs to.
func (d *leanDecoder) sample(b []byte) error {
	d.ids, d.sv = d.ids[:0], d.sv[:0]
	it := fieldIter{b: b}
	var err error
	for it.next() {
		switch it.field {
		case 1:
			d.ids, err = it.uvarints(d.ids)
		case 2:
			start := len(d.ids)
			d.ids, err = it.uvarints(d.ids)
			for _, v := range d.ids[start:] {
				d.sv = append(d.sv, int64(v))
			}
			d.ids = d.ids[:start]
		}
		if err != nil {
			return err
		}
	}
	if it.err != nil {
		return it.err
	}
	return d.addSample()
}

func (d *leanDecoder) addSample() error {
	if len(d.stackIdx) == 0 {
		d.nv = len(d.sv)
	} else if len(d.sv) != d.nv {
		return fmt.Errorf("sample has %d values, others have %d", len(d.sv), d.nv)
	}
	d.key = d.key[:0]
	for _, id := range d.ids {
		d.key = binary.AppendUvarint(d.key, id)
	}
	if i, ok := d.stackIdx[string(d.key)]; ok {
		for j, v := range d.sv {
			d.vals[int(i)*d.nv+j] += v
		}
		return nil
	}
	k := string(d.key)
	d.stackIdx[k] = int32(len(d.keys))
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, d.sv...)
	return nil
}

func (d *leanDecoder) mapping(b []byte) error {
	var id uint64
	var file int64
	it := fieldIter{b: b}
	for it.next() {
		switch {
		case it.field == 1 && it.wire == 0:
			id = it.v
		case it.field == 5 && it.wire == 0:
			file = int64(it.v)
		}
	}
	if d.maps == nil {
		d.maps = map[uint64]int64{}
	}
	d.maps[id] = file
	return it.err
}

func (d *leanDecoder) location(b []byte) error {
	loc := rawLocation{off: int32(len(d.locLines))}
	it := fieldIter{b: b}
	for it.next() {
		switch {
		case it.field == 1 && it.wire == 0:
			loc.id = it.v
		case it.field == 2 && it.wire == 0:
			loc.mapping = it.v
		case it.field == 4 && it.wire == 2:
			ln, err := parseLine(it.data)
			if err != nil {
				return err
			}
			d.locLines = append(d.locLines, ln)
			loc.n++
		}
	}
	d.locs = append(d.locs, loc)
	return it.err
}

// parseLine reads a Line message: function_id (1) and line (2).
func parseLine(b []byte) (rawLine, error) {
	var ln rawLine
	it := fieldIter{b: b}
	for it.next() {
		switch {
		case it.field == 1 && it.wire == 0:
			ln.fid = it.v
		case it.field == 2 && it.wire == 0:
			ln.line = int64(it.v)
		}
	}
	return ln, it.err
}

func (d *leanDecoder) function(b []byte) error {
	var fn rawFunction
	it := fieldIter{b: b}
	for it.next() {
		switch {
		case it.field == 1 && it.wire == 0:
			fn.id = it.v
		case it.field == 2 && it.wire == 0:
			fn.name = int64(it.v)
		case it.field == 4 && it.wire == 0:
			fn.file = int64(it.v)
		case it.field == 5 && it.wire == 0:
			fn.start = int64(it.v)
		}
	}
	d.funcs = append(d.funcs, fn)
	return it.err
}

// str resolves a string-table index.
func (d *leanDecoder) str(i int64) (string, error) {
	if i < 0 || i >= int64(len(d.strs)) {
		return "", fmt.Errorf("string index %d out of range [0, %d)", i, len(d.strs))
	}
	return d.strs[i], nil
}

// strPair resolves two string-table indexes.
func (d *leanDecoder) strPair(i, j int64) (string, string, error) {
	a, err := d.str(i)
	if err != nil {
		return "", "", err
	}
	b, err := d.str(j)
	return a, b, err
}
