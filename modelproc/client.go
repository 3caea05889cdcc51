package modelproc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/fresgld/fresgld/energy"
)

// Options configure a model process.
type Options struct {
	// Timeout bounds the wait for each reply, the handshake's included;
	// a model that takes longer is killed. Zero: DefaultTimeout.
	Timeout time.Duration
	// Stderr receives the model's standard error as it comes (nil: it is
	// only kept, its last lines quoted in errors).
	Stderr io.Writer
	// Text makes the client speak text even to a model that offers binary.
	Text bool
}

// DefaultTimeout is the reply timeout when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// Model is a model process seen as an energy.BatchTerms. Requests are
// serialised: chains that share a Model take turns.
//
// The energy.Terms methods cannot return an error. The first failure (the
// process exits, hangs past the timeout, answers an error, a NaN or ±Inf,
// or the wrong number of values) kills the process and is kept for Err;
// that call and every later one answer NaN, which stops a sampler at its
// next finiteness check, and the caller reports Err as the cause.
type Model struct {
	command string
	p, n    int
	names   []string
	binary  bool
	timeout time.Duration

	mu   sync.Mutex
	cmd  *exec.Cmd
	in   *os.File // the model's standard input
	out  *os.File // the model's standard output
	r    *bufio.Reader
	tail *tail
	err  error
	done chan struct{} // closed when the process has been waited for
	wait error

	buf   []byte
	raw   []byte // a binary reply
	toks  [][]byte
	vals  []float64
	one   [1]int32
	req   request
	prior priorCache
}

// priorCache keeps the prior that a terms reply carries at its x, which
// the estimators ask for right after the batch at the same state.
type priorCache struct {
	ok, grad bool
	x, g     []float64
	u        float64
}

var _ energy.BatchTerms = (*Model)(nil)

// Start runs command with sh -c, reads its handshake and agrees on an
// encoding. The process runs until Close.
func Start(command string, o Options) (*Model, error) {
	m := &Model{command: command, timeout: o.Timeout, tail: &tail{}, done: make(chan struct{})}
	if m.timeout == 0 {
		m.timeout = DefaultTimeout
	}
	if m.timeout < 0 {
		return nil, fmt.Errorf("model process: timeout %v must be positive", o.Timeout)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	m.cmd = exec.Command("sh", "-c", command)
	m.cmd.Stdin, m.cmd.Stdout = inR, outW
	m.cmd.Stderr = m.tail
	if o.Stderr != nil {
		m.cmd.Stderr = io.MultiWriter(m.tail, o.Stderr)
	}
	ownGroup(m.cmd)
	err = m.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("model process %q: %w", command, err)
	}
	go func() { m.wait = m.cmd.Wait(); close(m.done) }()
	m.in, m.out = inW, outR
	m.r = bufio.NewReaderSize(newSpinReader(outR), 1<<18)
	if err := m.handshake(o.Text); err != nil {
		m.kill()
		return nil, m.failure("handshake", err)
	}
	return m, nil
}

// handshake reads "fresgld-model 1 <encodings> <p> <N> <names…>" and
// answers "fresgld 1 <encoding>".
func (m *Model) handshake(text bool) error {
	m.out.SetReadDeadline(time.Now().Add(m.timeout))
	line, err := readLine(m.r)
	if err != nil {
		return m.ioError(err)
	}
	f := strings.Fields(string(line))
	if len(f) < 5 || f[0] != Magic {
		return fmt.Errorf("the first line %q is not a handshake %q", clip(string(line)), Magic+" <version> <encodings> <p> <N> <names…>")
	}
	if f[1] != fmt.Sprint(Version) {
		return fmt.Errorf("protocol version %q, this fresgld speaks %d", f[1], Version)
	}
	encs := strings.Split(f[2], ",")
	if !contains(encs, Text) {
		return fmt.Errorf("encodings %q do not include %q", f[2], Text)
	}
	m.binary = contains(encs, Binary) && !text
	if _, err := fmt.Sscan(f[3], &m.p); err != nil || m.p < 1 {
		return fmt.Errorf("dimension p = %q must be a positive integer", f[3])
	}
	if _, err := fmt.Sscan(f[4], &m.n); err != nil || m.n < 1 || m.n > math.MaxInt32 {
		return fmt.Errorf("number of examples N = %q must be an integer in [1, %d]", f[4], math.MaxInt32)
	}
	m.names = f[5:]
	if len(m.names) != m.p {
		return fmt.Errorf("%d parameter names for dimension p = %d", len(m.names), m.p)
	}
	seen := map[string]bool{}
	for _, s := range m.names {
		if seen[s] {
			return fmt.Errorf("parameter name %q appears twice", s)
		}
		seen[s] = true
	}
	enc := Text
	if m.binary {
		enc = Binary
	}
	m.in.SetWriteDeadline(time.Now().Add(m.timeout))
	_, err = fmt.Fprintf(m.in, "fresgld %d %s\n", Version, enc)
	m.vals = make([]float64, 4+4*m.p)
	m.prior = priorCache{x: make([]float64, m.p), g: make([]float64, m.p)}
	return err
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func (m *Model) Dim() int { return m.p }
func (m *Model) Len() int { return m.n }

// Names are the parameter names of the handshake.
func (m *Model) Names() []string { return m.names }

// Binary reports whether the client and the model agreed on binary.
func (m *Model) Binary() bool { return m.binary }

// Err is the failure that stopped the model, nil while it works.
func (m *Model) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// Close ends the model: its standard input is closed, which a model takes
// as the end, and it is killed if it has not exited within the timeout.
// Close returns the first failure, if any.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.in != nil {
		m.in.Close()
		select {
		case <-m.done:
		case <-time.After(m.timeout):
			m.kill()
		}
		m.out.Close()
		m.in = nil
	}
	return m.err
}

// kill ends the process group and waits for it.
func (m *Model) kill() {
	killGroup(m.cmd)
	<-m.done
}

// Prior answers from the last terms reply when it was at the same state.
func (m *Model) Prior(grad, theta []float64) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := &m.prior
	if c.ok && (grad == nil || c.grad) && same(c.x, theta) {
		copy(grad, c.g)
		return c.u
	}
	m.req = request{method: "prior", grad: grad != nil, x: theta}
	if !m.call() {
		return nan(grad)
	}
	m.keepPrior(theta, grad != nil)
	copy(grad, m.vals[1:])
	return m.vals[0]
}

func same(a, b []float64) bool {
	for j, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[j]) {
			return false
		}
	}
	return true
}

func (m *Model) keepPrior(x []float64, grad bool) {
	c := &m.prior
	c.ok, c.grad, c.u = true, grad, m.vals[0]
	copy(c.x, x)
	if grad {
		copy(c.g, m.vals[1:1+m.p])
	}
}

// Term is a batch of one example.
func (m *Model) Term(grad, theta []float64, i int) float64 {
	m.one[0] = int32(i)
	mo := energy.Moments{G: grad} // a batch of one: its sums are zero
	m.batch(&mo, theta, nil, m.one[:], false)
	return mo.U
}

func (m *Model) Batch(mo *energy.Moments, x, y []float64, idx []int32) {
	m.batch(mo, x, y, idx, idx == nil)
}

func (m *Model) batch(mo *energy.Moments, x, y []float64, idx []int32, all bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.req = request{method: "terms", grad: mo.G != nil, x: x, y: y, idx: idx, all: all}
	if !m.call() {
		mo.U, mo.USum, mo.USq = nan(mo.G), nan(mo.GSum), nan(mo.GSq)
		return
	}
	v := m.vals
	m.keepPrior(x, mo.G != nil)
	k := 1
	if mo.G != nil {
		k += m.p
	}
	mo.U, mo.USum, mo.USq = v[k], v[k+1], v[k+2]
	if mo.G != nil {
		k += 3
		copy(mo.G, v[k:k+m.p])
		copy(mo.GSum, v[k+m.p:k+2*m.p])
		copy(mo.GSq, v[k+2*m.p:k+3*m.p])
	}
}

func nan(g []float64) float64 {
	for j := range g {
		g[j] = math.NaN()
	}
	return math.NaN()
}

// call sends m.req and reads its reply into m.vals; on failure it kills the
// model, keeps the error and returns false.
func (m *Model) call() bool {
	if m.err != nil {
		return false
	}
	if m.in == nil {
		m.err = m.failure(m.describe(), errors.New("the model was closed"))
		return false
	}
	if err := m.exchange(); err != nil {
		m.kill()
		m.err = m.failure(m.describe(), err)
		return false
	}
	return true
}

func (m *Model) exchange() error {
	r := &m.req
	want := r.values(m.p)
	m.buf = appendRequest(m.buf[:0], r, m.binary)
	m.in.SetWriteDeadline(time.Now().Add(m.timeout))
	if _, err := m.in.Write(m.buf); err != nil {
		return m.ioError(err)
	}
	m.out.SetReadDeadline(time.Now().Add(m.timeout))
	line, err := readLine(m.r)
	if err != nil {
		return m.ioError(err)
	}
	m.toks = fields(m.toks, line)
	if len(m.toks) > 0 && string(m.toks[0]) == "error" {
		return fmt.Errorf("the model answered: %s", clip(string(bytes.TrimSpace(line[len("error"):]))))
	}
	if len(m.toks) == 0 || string(m.toks[0]) != "ok" {
		return fmt.Errorf("the reply %q starts with neither ok nor error", clip(string(line)))
	}
	vals := m.vals[:want]
	if m.binary {
		if len(m.toks) != 2 {
			return fmt.Errorf("the binary reply header %q is not \"ok <count>\"", clip(string(line)))
		}
		got, err := parseInt(m.toks[1])
		if err != nil || got != want {
			return fmt.Errorf("the reply carries %q values, want %d", m.toks[1], want)
		}
		if m.raw, err = readBinary(m.r, vals, m.raw); err != nil {
			return m.ioError(err)
		}
	} else {
		if got := len(m.toks) - 1; got != want {
			return fmt.Errorf("the reply carries %d values, want %d (%s)", got, want, layout(r, m.p))
		}
		if err := parseFloats(vals, m.toks[1:], "reply"); err != nil {
			return err
		}
	}
	for k, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("reply value %d (%s) is %v", k+1, valueName(r, m.p, k), v)
		}
	}
	return nil
}

// ioError explains a failed read or write: a timeout, or the process's
// exit with its status.
func (m *Model) ioError(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("no reply within the timeout of %v (the model was killed)", m.timeout)
	}
	select {
	case <-m.done:
	case <-time.After(time.Second):
	}
	select {
	case <-m.done:
		if m.wait != nil {
			return fmt.Errorf("the model exited (%v) before it answered", m.wait)
		}
		return errors.New("the model exited (status 0) before it answered")
	default:
		return err
	}
}
