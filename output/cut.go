package output

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
)

// A stream continued by AppendStream cuts its file back to an offset; the
// lines it cuts off are kept until it closes, and put back if it ends with
// fewer data lines after the offset than they held, its own being the first
// of theirs: a resumed chain that failed sooner than the run it continued
// keeps that run's draws, and its trailing comments, rather than replacing
// them by less. A checkpoint written meanwhile stays true: it counts lines
// the two share.
//
// The cut-off lines are also saved beside the file (.name.cut, synced
// before the cut), so that a continuation killed before its Close loses
// nothing either: the next AppendStream of the file puts them back first,
// on the same condition, and only if the file's first offset bytes are
// still those they were cut from.

// cutName is the file beside name that holds what AppendStream cut off.
func cutName(name string) string { return "." + name + ".cut" }

// saveCut writes path: offset, a hash of f's first offset bytes, and tail.
func saveCut(f *os.File, path string, offset int64, tail []byte) error {
	sum, err := prefixHash(f, offset)
	if err != nil {
		return err
	}
	return WriteFile(path, func(w io.Writer) error {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(offset))
		for _, b := range [][]byte{n[:], sum, tail} {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
}

// recoverCut puts back into f what a killed continuation cut off, as saved
// in path, and removes path. Without path it does nothing.
func recoverCut(f *os.File, path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(b) >= 8+sha256.Size {
		offset := int64(binary.LittleEndian.Uint64(b))
		sum, tail := b[8:8+sha256.Size], b[8+sha256.Size:]
		if now, err := prefixHash(f, offset); err == nil && bytes.Equal(now, sum) {
			if _, err := restoreTail(f, offset, tail); err != nil {
				return err
			}
		}
	}
	return os.Remove(path)
}

// prefixHash is the SHA-256 of f's first n bytes.
func prefixHash(f *os.File, n int64) ([]byte, error) {
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, n)); err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() < n {
		return nil, io.ErrUnexpectedEOF
	}
	return h.Sum(nil), nil
}

// restoreTail puts tail back at from in f when f's data lines (those not
// comments) after from are fewer than tail's and the first of them. It
// says whether it did.
func restoreTail(f *os.File, from int64, tail []byte) (bool, error) {
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	if st.Size() < from {
		return false, nil
	}
	now := make([]byte, st.Size()-from)
	if _, err := f.ReadAt(now, from); err != nil {
		return false, err
	}
	mine, theirs := dataLines(now), dataLines(tail)
	if len(mine) >= len(theirs) || !bytes.Equal(bytes.Join(mine, nil), bytes.Join(theirs[:len(mine)], nil)) {
		return false, nil
	}
	if err := f.Truncate(from); err != nil {
		return false, err
	}
	if _, err := f.WriteAt(tail, from); err != nil {
		return false, err
	}
	return true, f.Sync()
}

// dataLines are the lines of b that are not comments, each with its
// newline; a last line without one is left out.
func dataLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		if b[0] != '#' {
			out = append(out, b[:i+1])
		}
		b = b[i+1:]
	}
	return out
}
