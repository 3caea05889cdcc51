package analysis

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// notWritten lists the files among names in dir that a run would remove
// but fresgld did not write: a chain CSV whose first line is not the
// "# model = fresgld" comment that every chain file begins with, a
// checkpoint that does not decode. An empty chain file (a run killed
// before its first line) holds nothing to lose and is not listed.
func notWritten(dir string, names []string) []string {
	var foreign []string
	for _, name := range names {
		path := filepath.Join(dir, name)
		switch {
		case strings.HasPrefix(name, "chain-") && strings.HasSuffix(name, ".csv"):
			if !chainFileOurs(path) {
				foreign = append(foreign, name)
			}
		case strings.HasPrefix(name, "chain-") && strings.HasSuffix(name, ".ckpt"):
			b, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if _, derr := DecodeCheckpoint(b); err != nil || derr != nil {
				foreign = append(foreign, name)
			}
		}
	}
	return foreign
}

// chainFileOurs says whether path is absent, empty, or begins as a chain
// file of fresgld's does.
func chainFileOurs(path string) bool {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if line == "" && err != nil {
		return err == io.EOF
	}
	return strings.HasPrefix(line, "# model = fresgld ")
}

// refuseForeign is the error of a run whose --out holds files of the names
// it would replace that fresgld did not write.
func refuseForeign(dir string, foreign []string) error {
	them := "them"
	if len(foreign) == 1 {
		them = "it"
	}
	return fmt.Errorf("--out %s holds %s, which fresgld did not write and this run would replace: move %s elsewhere, or give another --out",
		dir, strings.Join(foreign, ", "), them)
}
