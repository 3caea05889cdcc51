package modelproc

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/fresgld/fresgld/energy"
)

// Serve answers the protocol for t on in and out until in ends: a Go model
// run as a process (the peer of this package's tests and benchmark). It
// offers binary as well as text when bin is true. A malformed request gets
// an error reply and the loop goes on; Serve returns on a failed read or
// write.
func Serve(t energy.Terms, names []string, bin bool, in io.Reader, out io.Writer) error {
	p, N := t.Dim(), t.Len()
	if len(names) != p {
		return fmt.Errorf("serve: %d names for dimension %d", len(names), p)
	}
	r, w := bufio.NewReaderSize(in, 1<<18), bufio.NewWriterSize(out, 1<<16)
	enc := Text
	if bin {
		enc += "," + Binary
	}
	fmt.Fprintf(w, "%s %d %s %d %d %s\n", Magic, Version, enc, p, N, strings.Join(names, " "))
	if err := w.Flush(); err != nil {
		return err
	}
	line, err := readLine(r)
	if err != nil {
		return err
	}
	var v int
	var got string
	if _, err := fmt.Sscanf(string(line), "fresgld %d %s", &v, &got); err != nil || v != Version || (got != Text && !(bin && got == Binary)) {
		return fmt.Errorf("serve: the answer to the handshake is %q", line)
	}
	s := server{t: t, p: p, N: N, bin: got == Binary, r: r, w: w,
		x: make([]float64, p), y: make([]float64, p), idx: make([]int32, 0, 128),
		vals: make([]float64, 0, 4+4*p)}
	s.b, _ = t.(energy.BatchTerms)
	if s.b == nil {
		s.b = energy.NewPerTerm(t)
	}
	s.mo = energy.Moments{G: make([]float64, p), GSum: make([]float64, p), GSq: make([]float64, p)}
	for {
		line, err := readLine(r)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := s.answer(line); err != nil {
			return err
		}
	}
}

type server struct {
	t       energy.Terms
	b       energy.BatchTerms
	p, N    int
	bin     bool
	r       *bufio.Reader
	w       *bufio.Writer
	toks    [][]byte
	x, y    []float64
	idx     []int32
	vals    []float64
	mo      energy.Moments
	out     []byte
	raw     []byte
	emo     energy.Moments // for energies alone
	scratch request
}

// answer reads the rest of the request whose header is line, computes and
// writes the reply; an error return is a failed read or write.
func (s *server) answer(line []byte) error {
	req, bad, err := s.read(line)
	if err != nil {
		return err
	}
	if bad != "" {
		s.w.WriteString("error " + bad + "\n")
		return s.w.Flush()
	}
	s.vals = s.vals[:0]
	var g []float64
	if req.grad {
		g = s.mo.G // the prior's gradient, before the batch overwrites G
	}
	u0 := s.t.Prior(g, req.x)
	s.vals = append(s.vals, u0)
	s.vals = append(s.vals, g...)
	if req.method == "terms" {
		mo := &s.mo
		if !req.grad {
			mo = &s.emo
		}
		var idx []int32
		if !req.all {
			idx = req.idx
		}
		s.b.Batch(mo, req.x, req.y, idx)
		s.vals = append(s.vals, mo.U, mo.USum, mo.USq)
		if req.grad {
			s.vals = append(s.vals, mo.G...)
			s.vals = append(s.vals, mo.GSum...)
			s.vals = append(s.vals, mo.GSq...)
		}
	}
	if s.bin {
		s.out = append(s.out[:0], "ok "...)
		s.out = fmt.Appendf(s.out, "%d\n", len(s.vals))
		s.out = appendBinary(s.out, s.vals)
	} else {
		s.out = append(s.out[:0], "ok"...)
		s.out = appendText(s.out, s.vals)
		s.out = append(s.out, '\n')
	}
	s.w.Write(s.out)
	return s.w.Flush()
}

// read parses a request; bad says what is wrong with a malformed one.
func (s *server) read(line []byte) (req *request, bad string, err error) {
	s.toks = fields(s.toks, line)
	req = &s.scratch
	*req = request{x: s.x}
	if len(s.toks) == 0 {
		return nil, "empty request", nil
	}
	req.method = string(s.toks[0])
	var n int
	switch {
	case req.method == "prior" && len(s.toks) >= 2:
		req.grad = string(s.toks[1]) == "1"
	case req.method == "terms" && len(s.toks) >= 4:
		req.grad = string(s.toks[1]) == "1"
		if string(s.toks[2]) == "1" {
			req.y = s.y
		}
		if string(s.toks[3]) == "all" {
			req.all = true
		} else if n, err = parseInt(s.toks[3]); err != nil || n < 1 {
			return nil, fmt.Sprintf("example count %q", s.toks[3]), nil
		}
	default:
		return nil, fmt.Sprintf("unknown request %q", clip(string(line))), nil
	}
	req.idx = s.idx[:0]
	for range n {
		req.idx = append(req.idx, 0)
	}
	s.idx = req.idx
	head := 2
	if req.method == "terms" {
		head = 4
	}
	if s.bin {
		if len(s.toks) != head {
			return nil, "binary header with numbers", nil
		}
		if s.raw, err = readBinary(s.r, req.x, s.raw); err != nil {
			return nil, "", err
		}
		if req.y != nil {
			if s.raw, err = readBinary(s.r, req.y, s.raw); err != nil {
				return nil, "", err
			}
		}
		if s.raw, err = readIndices(s.r, req.idx, s.raw); err != nil {
			return nil, "", err
		}
	} else {
		nums := s.toks[head:]
		want := len(req.x) + len(req.y) + n
		if len(nums) != want {
			return nil, fmt.Sprintf("%d numbers after the header, want %d", len(nums), want), nil
		}
		if err := parseFloats(req.x, nums[:s.p], "x"); err != nil {
			return nil, err.Error(), nil
		}
		nums = nums[s.p:]
		if req.y != nil {
			if err := parseFloats(req.y, nums[:s.p], "y"); err != nil {
				return nil, err.Error(), nil
			}
			nums = nums[s.p:]
		}
		for k, t := range nums {
			i, err := parseInt(t)
			if err != nil {
				return nil, fmt.Sprintf("index %d: %q", k+1, t), nil
			}
			req.idx[k] = int32(i)
		}
	}
	for _, i := range req.idx {
		if i < 0 || int(i) >= s.N {
			return nil, fmt.Sprintf("index %d outside [0, %d)", i, s.N), nil
		}
	}
	return req, "", nil
}
