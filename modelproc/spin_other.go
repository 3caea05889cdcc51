//go:build !unix

package modelproc

import (
	"io"
	"os"
)

func newSpinReader(f *os.File) io.Reader { return f }
