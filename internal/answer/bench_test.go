package answer

import (
	"bytes"
	"os"
	"testing"

	"perflab/internal/runfmt"
)

// BenchmarkDecide decides a stored run of the demo again: the answer is
// computed after every run's window.
func BenchmarkDecide(b *testing.B) {
	data, err := os.ReadFile("../report/testdata/page/demo.json")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		r, err := runfmt.Read(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		Decide(r)
	}
}
