package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// CheckOutput tells whether path can take an output, before any work is
// done: its directory exists, and path is absent or a regular file (or a
// symbolic link to one, whose target is then replaced). It does not write.
func CheckOutput(path string) error {
	_, err := outputPath(path)
	return err
}

// outputPath resolves path to the file a write replaces: a symbolic link's
// final target, so the link stays and points to the new content.
func outputPath(path string) (string, error) {
	if path == "" {
		return "", errors.New("empty output path")
	}
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	} else if l, lerr := os.Lstat(path); lerr == nil && l.Mode()&fs.ModeSymlink != 0 {
		return "", &fs.PathError{Op: "write", Path: path, Err: errors.New("a symbolic link to a missing file")}
	}
	st, err := os.Stat(target)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return "", &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("%w (%s): perflab replaces only files", ErrNotRegular, kind(st.Mode()))}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	dir := filepath.Dir(target)
	if st, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return "", &fs.PathError{Op: "write", Path: path, Err: fmt.Errorf("its directory does not exist: %w", fs.ErrNotExist)}
	} else if err != nil {
		return "", err
	} else if !st.IsDir() {
		return "", &fs.PathError{Op: "write", Path: dir, Err: errors.New("not a directory")}
	}
	return target, nil
}

// WriteAtomic writes path with write: into a temporary file in the same
// directory, synced and renamed over path once write and the close have
// succeeded. On any failure the temporary file is removed and path is left
// as it was; nothing else is ever removed. A new file gets mode 0644, a
// replaced one keeps its mode.
func WriteAtomic(path string, write func(w io.Writer) error) error {
	target, err := outputPath(path)
	if err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return err
	}
	err = write(tmp)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), target)
	}
	if err != nil {
		_ = os.Remove(tmp.Name()) // perflab's own temporary file
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// WriteFile writes data to path atomically (see WriteAtomic).
func WriteFile(path string, data []byte) error {
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
