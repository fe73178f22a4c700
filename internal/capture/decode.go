package capture

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/google/pprof/profile"
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
	p, err = profile.ParseData(data)
	if err == nil {
		return p, nil
	}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		return nil, fmt.Errorf("decoding profile: truncated or corrupt gzip data (%d bytes): %w", len(data), err)
	}
	return nil, fmt.Errorf("decoding profile: not a pprof profile (%d bytes starting %q): %w", len(data), snippet(data, 16), err)
}
