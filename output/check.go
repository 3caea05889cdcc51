package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Check says whether Prepare(path) would succeed, without creating,
// removing or changing anything: path, if it exists, must be a writable
// directory; else its nearest existing ancestor must be one, in which
// Prepare would create it. Commands call it before their costly setup (a
// data file's read, a pilot run), so that a bad --out fails at once and an
// earlier run's outputs stay in place until sampling is about to start.
func Check(path string) error {
	if path == "" {
		return errors.New("no output directory given")
	}
	dir := filepath.Clean(path)
	for {
		st, err := os.Stat(dir)
		if err == nil {
			if !st.IsDir() {
				if dir == filepath.Clean(path) {
					return fmt.Errorf("%s exists and is not a directory", path)
				}
				return fmt.Errorf("cannot create the output directory %s: %s is a file, not a directory", path, dir)
			}
			break
		}
		// Under a file, stat fails with ENOTDIR: go up to name the file.
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return fmt.Errorf("cannot create the output directory %s: %w", path, err)
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	probe, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		if dir == filepath.Clean(path) {
			return fmt.Errorf("output directory %s is not writable: %w", path, err)
		}
		return fmt.Errorf("cannot create the output directory %s: %s is not writable: %w", path, dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}
