package runfmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"perflab/internal/files"
)

// FileName is the name of the record inside a run directory.
const FileName = "run.json"

// Write encodes r as indented JSON.
func Write(w io.Writer, r *Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Read decodes a run record and refuses one written by a newer schema, or
// one with a word a vocabulary does not know: "run.json: findings[2].kind:
// unknown finding kind ..." (a *FieldError, see Decode).
func Read(rd io.Reader) (*Run, error) {
	var r Run
	err := Decode(rd, &r)
	if fe := (*FieldError)(nil); errors.As(err, &fe) {
		// A newer perflab's words: say so rather than name the first.
		if r.SchemaVersion > SchemaVersion {
			return nil, newerError(r.SchemaVersion)
		}
		return nil, fmt.Errorf("%s: %w", FileName, err)
	}
	if err != nil {
		return nil, fmt.Errorf("decoding run.json: %w", err)
	}
	if r.SchemaVersion > SchemaVersion {
		return nil, newerError(r.SchemaVersion)
	}
	if r.SchemaVersion < 1 {
		return nil, fmt.Errorf("run.json has no schema_version: not a perflab run")
	}
	if err := checkFigures(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", FileName, err)
	}
	for i := range r.Findings {
		r.Findings[i].Upgrade()
	}
	return &r, nil
}

func newerError(v int) error {
	return fmt.Errorf("run.json has schema_version %d, newer than this perflab understands (%d): upgrade perflab", v, SchemaVersion)
}

// MaxFileBytes bounds the run.json perflab reads: a real one is well under
// a megabyte (its largest part, the per-second series, is 1 KB a second).
const MaxFileBytes = 64 << 20

// ReadFile reads dir/run.json (or the file itself when path names a file);
// it reads regular files of at most MaxFileBytes only (files.Open).
func ReadFile(path string) (*Run, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, FileName)
	}
	f, err := files.Open(path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := Read(files.LimitReader(f, MaxFileBytes, path))
	if fe := (*FieldError)(nil); errors.As(err, &fe) {
		return nil, fmt.Errorf("%s: %w", path, fe) // path names run.json
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// WriteFile writes r to dir/run.json atomically (temporary file, synced,
// then renamed), so a crash or a full disk never leaves a half-written
// record or destroys the previous one.
func WriteFile(dir string, r *Run) error {
	return files.WriteAtomic(filepath.Join(dir, FileName), func(w io.Writer) error { return Write(w, r) })
}
