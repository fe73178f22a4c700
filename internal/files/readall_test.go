package files

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadAll(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 100_000) // 1 MB: several pieces
	for _, tc := range []struct {
		name  string
		r     io.Reader
		limit int64
		hint  int64
		want  []byte
		err   error
	}{
		{"no hint", bytes.NewReader(data), 0, 0, data, nil},
		{"exact hint", bytes.NewReader(data), 2 << 20, int64(len(data)), data, nil},
		{"short hint", bytes.NewReader(data), 2 << 20, 10, data, nil},
		{"long hint", bytes.NewReader(data), 2 << 20, 3 << 20, data, nil},
		{"one byte at a time", iotest.OneByteReader(bytes.NewReader(data[:1000])), 1000, 0, data[:1000], nil},
		{"empty", strings.NewReader(""), 10, 0, []byte{}, nil},
		{"at the limit", bytes.NewReader(data), int64(len(data)), 0, data, nil},
		{"over the limit", bytes.NewReader(data), int64(len(data)) - 1, 0, nil, ErrTooLarge},
		{"a reader's own unexpected EOF", io.MultiReader(bytes.NewReader(data[:100]), iotest.ErrReader(io.ErrUnexpectedEOF)), 0, 0, nil, io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadAll(tc.r, tc.limit, tc.hint, "the stream")
			if !errors.Is(err, tc.err) || (tc.err == nil && !bytes.Equal(got, tc.want)) {
				t.Errorf("ReadAll = %d bytes, %v; want %d bytes, %v", len(got), err, len(tc.want), tc.err)
			}
		})
	}
}
