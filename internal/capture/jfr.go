package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
)

// A JFR recording (the JDK Flight Recorder's format, version 2, as
// async-profiler writes it) is a sequence of chunks. Each chunk starts
// with a header giving its size and the offsets of its metadata and of
// its last constant pool; then come events, each its size, its type and
// its fields. The metadata event describes every type: its fields, in
// order, with their types, whether a field is an array and whether it is
// a key into a constant pool. The checkpoint events hold the constant
// pools: threads, stack traces, methods, classes, symbols. jfrChunk reads
// one chunk from that description alone, so a type or field the reader
// does not use is skipped, not misread.

// jfrChunkHeader is the chunk header's size; jfrMagic starts it.
const (
	jfrChunkHeader = 68
	jfrMagic       = "FLR\x00"
)

// The event types every chunk has.
const (
	jfrMetadataEvent   = 0
	jfrCheckpointEvent = 1
)

// jfrMaxDepth bounds the nesting of the metadata's elements and of a
// value's fields: a recording that nests deeper is malformed.
const jfrMaxDepth = 64

// jfrObjectsPerByte bounds the objects an event's bytes hold: a real
// object takes a byte at least (a field's value or a key), and a few of
// them nest in one another.
const jfrObjectsPerByte = 8

// jfrType is a type of the recording's metadata.
type jfrType struct {
	id     int64
	name   string
	fields []jfrField
}

// jfrField is a field of a type: its name, its type, and whether it is an
// array or a key into its type's constant pool.
type jfrField struct {
	name         string
	typ          int64
	array        bool
	constantPool bool
}

// jfrRef is a field's key into the constant pool of typ.
type jfrRef struct {
	typ, key int64
}

// jfrObject is a value of a type with fields: each field's value, in the
// type's order (int64, float64, bool, string, jfrRef, *jfrObject or
// []any for an array).
type jfrObject struct {
	typ  *jfrType
	vals []any
}

// field is the value of o's field named name, nil when o has none.
func (o *jfrObject) field(name string) any {
	if o == nil {
		return nil
	}
	for i, f := range o.typ.fields {
		if f.name == name && i < len(o.vals) {
			return o.vals[i]
		}
	}
	return nil
}

// jfrChunk is one chunk read: its types, its constant pools by type and
// key, and its events of the types asked for.
type jfrChunk struct {
	types  map[int64]*jfrType
	byName map[string]*jfrType
	pools  map[int64]map[int64]any
	events []*jfrObject
}

// resolve returns v with a constant pool key replaced by its entry (nil
// when the pool lacks it).
func (c *jfrChunk) resolve(v any) any {
	if r, ok := v.(jfrRef); ok {
		return c.pools[r.typ][r.key]
	}
	return v
}

// object resolves v and returns it as an object, nil when it is not one.
func (c *jfrChunk) object(v any) *jfrObject {
	o, _ := c.resolve(v).(*jfrObject)
	return o
}

// str resolves v and returns it as a string: a string, or the value of a
// type with one field that is (a symbol, an enum's description).
func (c *jfrChunk) str(v any) string {
	switch x := c.resolve(v).(type) {
	case string:
		return x
	case *jfrObject:
		if len(x.vals) == 1 {
			return c.str(x.vals[0])
		}
	}
	return ""
}

// integer resolves v and returns it as an integer, 0 when it is not one.
func (c *jfrChunk) integer(v any) int64 {
	n, _ := c.resolve(v).(int64)
	return n
}

// readJFR reads every chunk of a recording, keeping the events whose
// type is named in want; it calls each for every chunk read.
func readJFR(data []byte, want map[string]bool, each func(*jfrChunk) error) error {
	if len(data) == 0 {
		return errors.New("empty recording")
	}
	for off := 0; off < len(data); {
		c, size, err := readJFRChunk(data[off:], want)
		if err != nil {
			return fmt.Errorf("chunk at byte %d: %w", off, err)
		}
		if err := each(c); err != nil {
			return err
		}
		off += size
	}
	return nil
}

// readJFRChunk reads the chunk data starts with and returns it with its
// size.
func readJFRChunk(data []byte, want map[string]bool) (*jfrChunk, int, error) {
	if len(data) < jfrChunkHeader || string(data[:4]) != jfrMagic {
		return nil, 0, errors.New("not a JFR chunk (no FLR header)")
	}
	if major := binary.BigEndian.Uint16(data[4:]); major != 2 {
		return nil, 0, fmt.Errorf("JFR version %d.%d: want 2.x", major, binary.BigEndian.Uint16(data[6:]))
	}
	size := int64(binary.BigEndian.Uint64(data[8:]))
	metaOff := int64(binary.BigEndian.Uint64(data[24:]))
	compressed := binary.BigEndian.Uint32(data[64:])&1 != 0
	switch {
	case size < jfrChunkHeader || size > int64(len(data)):
		return nil, 0, fmt.Errorf("chunk size %d of %d bytes: the recording is incomplete", size, len(data))
	case metaOff < jfrChunkHeader || metaOff >= size:
		return nil, 0, fmt.Errorf("metadata at %d, outside the chunk's %d bytes (a recording not finished)", metaOff, size)
	}
	chunk := data[:size]
	c := &jfrChunk{types: map[int64]*jfrType{}, byName: map[string]*jfrType{}, pools: map[int64]map[int64]any{}}
	if err := c.readMetadata(&jfrDecoder{b: chunk[metaOff:], compressed: compressed}); err != nil {
		return nil, 0, fmt.Errorf("metadata: %w", err)
	}
	for pos := int64(jfrChunkHeader); pos < size; {
		d := &jfrDecoder{b: chunk[pos:], compressed: compressed}
		n := d.varint()
		typ := d.varint()
		if d.err != nil || n <= 0 || n > size-pos {
			return nil, 0, fmt.Errorf("event at byte %d: size %d: malformed", pos, n)
		}
		d.b, d.off = d.b[d.off:n], 0
		var err error
		switch t := c.types[typ]; {
		case typ == jfrMetadataEvent:
		case typ == jfrCheckpointEvent:
			err = c.readCheckpoint(d)
		case t != nil && want[t.name]:
			var o *jfrObject
			if o, err = d.object(c, t, 0); err == nil {
				c.events = append(c.events, o)
			}
		}
		if err != nil {
			return nil, 0, fmt.Errorf("event of type %d at byte %d: %w", typ, pos, err)
		}
		pos += n
	}
	return c, int(size), nil
}

// readMetadata reads the metadata event: its strings, then its tree of
// elements, whose "class" elements are the types.
func (c *jfrChunk) readMetadata(d *jfrDecoder) error {
	d.varint() // size
	if t := d.varint(); t != jfrMetadataEvent && d.err == nil {
		return fmt.Errorf("event type %d: want the metadata's, 0", t)
	}
	d.varint() // start time
	d.varint() // duration
	d.varint() // metadata id
	n := d.count()
	strs := make([]string, n)
	for i := range strs {
		strs[i] = d.str(nil)
	}
	if d.err != nil {
		return d.err
	}
	if err := c.readElement(d, strs, nil, 0); err != nil {
		return err
	}
	for _, t := range c.types {
		for _, f := range t.fields {
			if c.types[f.typ] == nil {
				return fmt.Errorf("type %s: field %s of type %d, not described", t.name, f.name, f.typ)
			}
		}
	}
	return nil
}

// readElement reads one element of the metadata's tree and its children:
// a "class" is a type, a "field" one of its parent type's fields.
func (c *jfrChunk) readElement(d *jfrDecoder, strs []string, parent *jfrType, depth int) error {
	if depth > jfrMaxDepth {
		return errors.New("elements nested too deep")
	}
	name := d.index(strs)
	attrs := map[string]string{}
	for n := d.count(); n > 0 && d.err == nil; n-- {
		k := d.index(strs)
		attrs[k] = d.index(strs)
	}
	if d.err != nil {
		return d.err
	}
	var self *jfrType
	switch name {
	case "class":
		id, err := strconv.ParseInt(attrs["id"], 10, 64)
		if err != nil {
			return fmt.Errorf("class %q: id %q", attrs["name"], attrs["id"])
		}
		self = &jfrType{id: id, name: attrs["name"]}
		c.types[id], c.byName[self.name] = self, self
	case "field":
		if parent == nil {
			break
		}
		typ, err := strconv.ParseInt(attrs["class"], 10, 64)
		if err != nil {
			return fmt.Errorf("type %s: field %q of class %q", parent.name, attrs["name"], attrs["class"])
		}
		parent.fields = append(parent.fields, jfrField{name: attrs["name"], typ: typ,
			array: attrs["dimension"] == "1", constantPool: attrs["constantPool"] == "true"})
	}
	for n := d.count(); n > 0 && d.err == nil; n-- {
		if err := c.readElement(d, strs, self, depth+1); err != nil {
			return err
		}
	}
	return d.err
}

// readCheckpoint reads a checkpoint event's constant pools into c.pools.
func (c *jfrChunk) readCheckpoint(d *jfrDecoder) error {
	d.varint() // start time
	d.varint() // duration
	d.varint() // delta to the previous checkpoint
	d.varint() // its kind
	for pools := d.count(); pools > 0 && d.err == nil; pools-- {
		t := c.types[d.varint()]
		if t == nil {
			return errors.New("constant pool of a type not described")
		}
		pool := c.pools[t.id]
		if pool == nil {
			pool = map[int64]any{}
			c.pools[t.id] = pool
		}
		for n := d.count(); n > 0 && d.err == nil; n-- {
			key := d.varint()
			v, err := d.value(c, t, 0)
			if err != nil {
				return fmt.Errorf("constant pool of %s: %w", t.name, err)
			}
			pool[key] = v
		}
	}
	return d.err
}

// jfrDecoder reads a JFR event's bytes; compressed says its integers are
// varints. The first error sticks: reads after it return zero values.
type jfrDecoder struct {
	b          []byte
	off        int
	compressed bool
	err        error
	// objects counts the objects read; a type of fields that take no
	// bytes could otherwise be read without end (see object).
	objects int
}

func (d *jfrDecoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%s at byte %d of %d: truncated or malformed", what, d.off, len(d.b))
	}
}

func (d *jfrDecoder) bytes(n int) []byte {
	if d.err != nil || n < 0 || n > len(d.b)-d.off {
		d.fail("bytes")
		return nil
	}
	out := d.b[d.off : d.off+n]
	d.off += n
	return out
}

// varint reads a JFR varint: 7 bits a byte, low first, the ninth byte
// whole.
func (d *jfrDecoder) varint() int64 {
	var v uint64
	for i := 0; i < 9; i++ {
		b := d.bytes(1)
		if b == nil {
			return 0
		}
		if i == 8 {
			return int64(v | uint64(b[0])<<56)
		}
		v |= uint64(b[0]&0x7f) << (7 * i)
		if b[0] < 0x80 {
			break
		}
	}
	return int64(v)
}

// integer reads an integer field of size bytes when not compressed.
func (d *jfrDecoder) integer(size int) int64 {
	if d.compressed {
		return d.varint()
	}
	b := d.bytes(size)
	if b == nil {
		return 0
	}
	var v int64
	for _, x := range b {
		v = v<<8 | int64(x)
	}
	return v
}

// count reads a count of things that take a byte each at least: more
// than the bytes left is malformed.
func (d *jfrDecoder) count() int {
	n := d.integer(4)
	if n < 0 || n > int64(len(d.b)-d.off) {
		d.fail("count " + strconv.FormatInt(n, 10))
		return 0
	}
	return int(n)
}

// index reads an index into strs.
func (d *jfrDecoder) index(strs []string) string {
	i := d.integer(4)
	if i < 0 || i >= int64(len(strs)) {
		d.fail("string index")
		return ""
	}
	return strs[i]
}

// str reads a string in one of JFR's encodings; a key into the string
// constant pool is looked up in c's (nil: none).
func (d *jfrDecoder) str(c *jfrChunk) string {
	enc := d.bytes(1)
	if enc == nil {
		return ""
	}
	switch enc[0] {
	case 0, 1: // null, empty
		return ""
	case 2: // a key into the strings' pool
		key := d.varint()
		if c != nil {
			if t := c.byName["java.lang.String"]; t != nil {
				s, _ := c.pools[t.id][key].(string)
				return s
			}
		}
		return ""
	case 3: // UTF-8
		return string(d.bytes(d.count()))
	case 4: // UTF-16 code units, each an integer
		n := d.count()
		units := make([]uint16, n)
		for i := range units {
			units[i] = uint16(d.integer(2))
		}
		return string(utf16.Decode(units))
	case 5: // Latin-1
		b := d.bytes(d.count())
		r := make([]rune, len(b))
		for i, x := range b {
			r[i] = rune(x)
		}
		return string(r)
	}
	d.fail("string encoding " + strconv.Itoa(int(enc[0])))
	return ""
}

// value reads a value of type t: a primitive, a string, or an object of
// t's fields.
func (d *jfrDecoder) value(c *jfrChunk, t *jfrType, depth int) (any, error) {
	switch t.name {
	case "boolean":
		b := d.bytes(1)
		return b != nil && b[0] != 0, d.err
	case "byte":
		b := d.bytes(1)
		if b == nil {
			return int64(0), d.err
		}
		return int64(int8(b[0])), d.err
	case "char", "short":
		return d.integer(2), d.err
	case "int":
		return d.integer(4), d.err
	case "long":
		return d.integer(8), d.err
	case "float":
		b := d.bytes(4)
		if b == nil {
			return 0.0, d.err
		}
		return float64(math.Float32frombits(binary.BigEndian.Uint32(b))), d.err
	case "double":
		b := d.bytes(8)
		if b == nil {
			return 0.0, d.err
		}
		return math.Float64frombits(binary.BigEndian.Uint64(b)), d.err
	case "java.lang.String":
		return d.str(c), d.err
	}
	return d.object(c, t, depth)
}

// object reads a value of t's fields.
func (d *jfrDecoder) object(c *jfrChunk, t *jfrType, depth int) (*jfrObject, error) {
	d.objects++
	if depth > jfrMaxDepth || d.objects > jfrObjectsPerByte*(len(d.b)+1) {
		return nil, errors.New("values nested too deep, or more than the bytes can hold")
	}
	o := &jfrObject{typ: t, vals: make([]any, len(t.fields))}
	for i, f := range t.fields {
		v, err := d.fieldValue(c, f, depth)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t.name, f.name, err)
		}
		o.vals[i] = v
	}
	return o, nil
}

// fieldValue reads the value of field f: an array of its values, a key
// into its type's constant pool, or the value itself.
func (d *jfrDecoder) fieldValue(c *jfrChunk, f jfrField, depth int) (any, error) {
	t := c.types[f.typ]
	one := func() (any, error) {
		if f.constantPool {
			return jfrRef{typ: f.typ, key: d.varint()}, d.err
		}
		return d.value(c, t, depth+1)
	}
	if !f.array {
		return one()
	}
	n := d.count()
	out := make([]any, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		v, err := one()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, d.err
}
