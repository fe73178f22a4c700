// Package pair replaces every occurrence of one word in a stream with
// another, two ways: AlgorithmOne reads the stream through a bytes.Buffer
// and a window the size of the word, which costs two heap allocations per
// call; AlgorithmTwo scans the input slice in place and allocates nothing.
// perflab's benchmark tests measure the pair.
package pair

import (
	"bytes"
	"io"
)

// AlgorithmOne copies data to out with every find replaced by repl,
// reading data through a window of len(find) bytes.
func AlgorithmOne(data, find, repl []byte, out *bytes.Buffer) {
	input := bytes.NewBuffer(data)
	window := make([]byte, len(find))
	last := len(find) - 1
	if n, err := io.ReadFull(input, window[:last]); err != nil {
		out.Write(window[:n])
		return
	}
	for {
		if _, err := io.ReadFull(input, window[last:]); err != nil {
			out.Write(window[:last])
			return
		}
		if !bytes.Equal(window, find) {
			out.WriteByte(window[0])
			copy(window, window[1:])
			continue
		}
		out.Write(repl)
		if n, err := io.ReadFull(input, window[:last]); err != nil {
			out.Write(window[:n])
			return
		}
	}
}

// AlgorithmTwo does what AlgorithmOne does, scanning data in place.
func AlgorithmTwo(data, find, repl []byte, out *bytes.Buffer) {
	for i := 0; i < len(data); {
		if bytes.HasPrefix(data[i:], find) {
			out.Write(repl)
			i += len(find)
			continue
		}
		out.WriteByte(data[i])
		i++
	}
}
