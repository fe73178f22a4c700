package pair

import (
	"bytes"
	"testing"
)

var (
	input = []byte("abcelvis_aElvisabcelviseelvisaelvisaabeeeelvise l v i saa bb e l v i saa elvi selvielviselvielvielviselvi1elvielviselvis")
	want  = []byte("abcElvis_aElvisabcElviseElvisaElvisaabeeeElvise l v i saa bb e l v i saa elvi selviElviselvielviElviselvi1elviElvisElvis")
	find  = []byte("elvis")
	repl  = []byte("Elvis")
)

func TestAlgorithms(t *testing.T) {
	for name, alg := range map[string]func(data, find, repl []byte, out *bytes.Buffer){"one": AlgorithmOne, "two": AlgorithmTwo} {
		var out bytes.Buffer
		alg(input, find, repl, &out)
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: got %q, want %q", name, out.Bytes(), want)
		}
	}
}

func BenchmarkAlgorithmOne(b *testing.B) {
	out := bytes.NewBuffer(make([]byte, 0, 2*len(input)))
	for i := 0; i < b.N; i++ {
		out.Reset()
		AlgorithmOne(input, find, repl, out)
	}
}

func BenchmarkAlgorithmTwo(b *testing.B) {
	out := bytes.NewBuffer(make([]byte, 0, 2*len(input)))
	for i := 0; i < b.N; i++ {
		out.Reset()
		AlgorithmTwo(input, find, repl, out)
	}
}
