// Package modelproc runs a model written in any language as a separate
// process and speaks to it over its standard input and output with a small
// line protocol (docs/model-protocol.md): Start gives the process as an
// energy.BatchTerms, and Serve answers the protocol for a Go model.
package modelproc

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unsafe"
)

// Version is the protocol version this package speaks.
const Version = 1

// Magic opens a model's handshake line.
const Magic = "fresgld-model"

// The two encodings of requests' and replies' numbers. Text is what every
// model speaks: decimal numbers that read back exactly (shortest
// round-trip, or 17 significant digits). Binary, which a model may offer,
// keeps the same header lines but sends the numbers as little-endian
// float64 (indices int32) after them, with no formatting or parsing.
const (
	Text   = "text"
	Binary = "binary"
)

// request is one request: "prior" at x, or "terms" over idx (nil: all)
// at x, or of the differences between x and y.
type request struct {
	method string
	grad   bool
	x, y   []float64
	idx    []int32
	all    bool
}

// values is the number of values the reply to r carries in dimension p:
// the prior at x (and its gradient), then for "terms" the Moments' U, USum,
// USq (and G, GSum, GSq).
func (r *request) values(p int) int {
	n := 1
	if r.grad {
		n += p
	}
	if r.method == "terms" {
		n += 3
		if r.grad {
			n += 3 * p
		}
	}
	return n
}

func flag(b bool) byte {
	if b {
		return '1'
	}
	return '0'
}

// appendRequest encodes r onto b.
func appendRequest(b []byte, r *request, bin bool) []byte {
	b = append(b, r.method...)
	if r.method == "terms" {
		b = append(b, ' ', flag(r.grad), ' ', flag(r.y != nil), ' ')
		if r.all {
			b = append(b, "all"...)
		} else {
			b = strconv.AppendInt(b, int64(len(r.idx)), 10)
		}
	} else {
		b = append(b, ' ', flag(r.grad))
	}
	if bin {
		b = append(b, '\n')
		b = appendBinary(b, r.x)
		b = appendBinary(b, r.y)
		for _, i := range r.idx {
			b = binary.LittleEndian.AppendUint32(b, uint32(i))
		}
		return b
	}
	b = appendText(b, r.x)
	b = appendText(b, r.y)
	for _, i := range r.idx {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(i), 10)
	}
	return append(b, '\n')
}

func appendText(b []byte, v []float64) []byte {
	for _, x := range v {
		b = append(b, ' ')
		b = strconv.AppendFloat(b, x, 'g', -1, 64)
	}
	return b
}

func appendBinary(b []byte, v []float64) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// fields splits a line on blanks (spaces, tabs, a trailing carriage
// return) into dst, reused.
func fields(dst [][]byte, line []byte) [][]byte {
	dst = dst[:0]
	for i := 0; i < len(line); {
		for i < len(line) && blank(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !blank(line[j]) {
			j++
		}
		if j > i {
			dst = append(dst, line[i:j])
		}
		i = j
	}
	return dst
}

func blank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// parseFloat reads a number without copying the bytes into a string (which
// would allocate on every value): ParseFloat keeps nothing of its argument.
func parseFloat(b []byte) (float64, error) {
	if len(b) == 0 {
		return 0, errors.New("empty number")
	}
	return strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
}

func parseInt(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, errors.New("empty number")
	}
	return strconv.Atoi(unsafe.String(&b[0], len(b)))
}

// readLine reads one line, without its newline, valid until the next read.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		// Longer than the buffer: gather it.
		buf := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			line, err = r.ReadSlice('\n')
			buf = append(buf, line...)
		}
		line = buf
	}
	if err != nil {
		if err == io.EOF && len(line) > 0 {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return line[:len(line)-1], nil
}

// readBinary reads len(dst) little-endian float64s through buf (grown as
// needed and returned, so that no read allocates).
func readBinary(r *bufio.Reader, dst []float64, buf []byte) ([]byte, error) {
	buf = grow(buf, 8*len(dst))
	if _, err := io.ReadFull(r, buf); err != nil {
		return buf, err
	}
	for k := range dst {
		dst[k] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*k:]))
	}
	return buf, nil
}

func readIndices(r *bufio.Reader, dst []int32, buf []byte) ([]byte, error) {
	buf = grow(buf, 4*len(dst))
	if _, err := io.ReadFull(r, buf); err != nil {
		return buf, err
	}
	for k := range dst {
		dst[k] = int32(binary.LittleEndian.Uint32(buf[4*k:]))
	}
	return buf, nil
}

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// parseFloats reads the numbers of toks into dst, naming a bad one.
func parseFloats(dst []float64, toks [][]byte, what string) error {
	for k, t := range toks {
		v, err := parseFloat(t)
		if err != nil {
			return fmt.Errorf("%s value %d: %q is not a number", what, k+1, t)
		}
		dst[k] = v
	}
	return nil
}
