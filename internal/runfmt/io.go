package runfmt

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// FileName is the name of the record inside a run directory.
const FileName = "run.json"

// Write encodes r as indented JSON.
func Write(w io.Writer, r *Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Read decodes a run record and refuses one written by a newer schema.
func Read(rd io.Reader) (*Run, error) {
	var r Run
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("decoding run.json: %w", err)
	}
	if r.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("run.json has schema_version %d, newer than this perflab understands (%d): upgrade perflab", r.SchemaVersion, SchemaVersion)
	}
	if r.SchemaVersion < 1 {
		return nil, fmt.Errorf("run.json has no schema_version: not a perflab run")
	}
	return &r, nil
}

// ReadFile reads dir/run.json (or the file itself when path names a file).
func ReadFile(path string) (*Run, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, FileName)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// WriteFile writes r to dir/run.json atomically (temporary file, then rename),
// so a crash never leaves a half-written record.
func WriteFile(dir string, r *Run) error {
	tmp, err := os.CreateTemp(dir, ".run-*.json")
	if err != nil {
		return err
	}
	if err := Write(tmp, r); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, FileName))
}
