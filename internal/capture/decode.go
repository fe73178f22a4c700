package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/google/pprof/profile"

	"perflab/internal/files"
	"perflab/internal/runfmt"
)

// Decode parses a profile in pprof's protobuf format, gzipped or not (or one
// of the legacy text formats profile.ParseData accepts) and checks it.
// Errors say whether the data was empty, a truncated or corrupt gzip stream,
// or not a profile.
func Decode(data []byte) (p *profile.Profile, err error) {
	if len(data) == 0 {
		return nil, errors.New("decoding profile: empty data")
	}
	defer func() {
		// profile.ParseData is meant not to panic, but this package must not
		// crash the lab on a hostile endpoint's bytes.
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("decoding profile: corrupt profile data (%v)", r)
		}
	}()
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		// profile.ParseData would inflate without bound: a small gzip bomb
		// from an endpoint would take gigabytes.
		raw, gerr := gunzip(data)
		if errors.Is(gerr, files.ErrTooLarge) {
			return nil, fmt.Errorf("decoding profile: %w", gerr)
		}
		if gerr == nil {
			data = raw
		}
	}
	p, err = profile.ParseData(data)
	if err == nil {
		return p, nil
	}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		return nil, fmt.Errorf("decoding profile: truncated or corrupt gzip data (%d bytes): %w", len(data), err)
	}
	return nil, fmt.Errorf("decoding profile: not a pprof profile (%d bytes starting %q): %w", len(data), snippet(data, 16), err)
}

// gunzip inflates data, at most runfmt.MaxProfileDecodedBytes of it, into
// a buffer of the size gzip's trailer states (ISIZE: the size modulo 4
// GiB, of the last member), so a profile is not copied as it grows.
func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var hint int64
	if len(data) >= 18 {
		hint = int64(binary.LittleEndian.Uint32(data[len(data)-4:]))
	}
	return files.ReadAll(zr, runfmt.MaxProfileDecodedBytes, hint, "decompressed profile")
}
