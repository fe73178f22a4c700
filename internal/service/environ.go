package service

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
)

// Environ returns the environment pid started with (/proc/PID/environ),
// at most 1 MiB of it.
func Environ(pid int) (map[string]string, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok && k != "" {
			out[k] = v
		}
	}
	return out, nil
}
