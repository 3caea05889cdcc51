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
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/internal/procgroup"
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
	// Procs is the number of copies of the model process to run (0: one).
	// Requests go to whichever copy is free, so that chains sampling at
	// once do not wait for each other; every copy must give the same
	// handshake.
	Procs int
}

// DefaultTimeout is the reply timeout when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// Model is a model process, or several copies of it, seen as an
// energy.BatchTerms and as its exact energy (energy.EnergyGrad): U, Grad
// and UGrad over all examples plus the prior are one round trip each.
// Each request goes to a free copy; callers wait only when every copy is
// busy.
//
// The energy.Terms methods cannot return an error. The first failure (the
// process exits, hangs past the timeout, answers an error, a NaN or ±Inf,
// or the wrong number of values) kills that process and is kept for Err;
// that call and every later one answer NaN, which stops a sampler at its
// next finiteness check, and the caller reports Err as the cause.
type Model struct {
	command string
	p, n    int
	names   []string
	binary  bool
	timeout time.Duration

	procs   []*proc
	free    chan *proc
	calls   atomic.Int64
	rejects atomic.Int64

	mu  sync.Mutex // guards err, rejected and prior
	err error
	// lastReject is the message of the latest reject reply.
	lastReject string
	prior      []priorEntry // a ring of the priors the latest replies carried
	next       int
	closed     bool
}

// proc is one model process and the buffers of its requests.
type proc struct {
	m    *Model
	cmd  *exec.Cmd
	in   *os.File // the model's standard input
	out  *os.File // the model's standard output
	r    *bufio.Reader
	tail *tail
	done chan struct{} // closed when the process has been waited for
	wait error

	buf  []byte
	raw  []byte // a binary reply
	toks [][]byte
	vals []float64
	one  [1]int32
	req  request
}

// priorEntry keeps the prior that a terms reply carries at its x, which
// the estimators ask for right after the batch at the same state. The
// ring holds a few per process, since chains sampling at once interleave
// their requests.
type priorEntry struct {
	ok, grad bool
	x, g     []float64
	u        float64
}

// priorsPerProc is the ring's length per process: a chain's levels may
// ask at once (a hand-off), each between its batch and its prior.
const priorsPerProc = 4

var (
	_ energy.BatchTerms = (*Model)(nil)
	_ energy.EnergyGrad = (*Model)(nil)
)

// Start runs command with sh -c (Options.Procs times), reads each
// handshake and agrees on an encoding. The processes run until Close.
func Start(command string, o Options) (*Model, error) {
	m := &Model{command: command, timeout: o.Timeout}
	if m.timeout == 0 {
		m.timeout = DefaultTimeout
	}
	if m.timeout < 0 {
		return nil, fmt.Errorf("model process: timeout %v must be positive", o.Timeout)
	}
	if o.Procs < 0 {
		return nil, fmt.Errorf("model process: %d processes", o.Procs)
	}
	k := max(o.Procs, 1)
	// All start before any handshake is read, so that they load their data
	// side by side.
	for range k {
		c, err := m.spawn(o.Stderr)
		if err != nil {
			m.abort()
			return nil, err
		}
		m.procs = append(m.procs, c)
	}
	for i, c := range m.procs {
		if err := c.handshake(o.Text, i == 0); err != nil {
			c.kill() // its standard error is then whole
			err = c.failure("handshake", err)
			m.abort()
			return nil, err
		}
	}
	m.free = make(chan *proc, k)
	for _, c := range m.procs {
		m.free <- c
	}
	m.prior = make([]priorEntry, priorsPerProc*k)
	for i := range m.prior {
		m.prior[i] = priorEntry{x: make([]float64, m.p), g: make([]float64, m.p)}
	}
	return m, nil
}

// abort kills every process started, for a Start that fails.
func (m *Model) abort() {
	for _, c := range m.procs {
		c.kill()
		c.in.Close()
		c.out.Close()
	}
}

// spawn starts one copy of the model.
func (m *Model) spawn(stderr io.Writer) (*proc, error) {
	c := &proc{m: m, tail: &tail{}, done: make(chan struct{})}
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
	c.cmd = exec.Command("sh", "-c", m.command)
	c.cmd.Stdin, c.cmd.Stdout = inR, outW
	c.cmd.Stderr = c.tail
	if stderr != nil {
		c.cmd.Stderr = io.MultiWriter(c.tail, stderr)
	}
	procgroup.Own(c.cmd)
	err = c.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("model process %q: %w", m.command, err)
	}
	go func() { c.wait = c.cmd.Wait(); close(c.done) }()
	c.in, c.out = inW, outR
	c.r = bufio.NewReaderSize(newSpinReader(outR), 1<<18)
	return c, nil
}

// handshake reads "fresgld-model 1 <encodings> <p> <N> <names…>" and
// answers "fresgld 1 <encoding>". The first process's sets the model's
// dimension, size, names and encoding; the others' must agree.
func (c *proc) handshake(text, first bool) error {
	m := c.m
	c.out.SetReadDeadline(time.Now().Add(m.timeout))
	line, err := readLine(c.r)
	if err != nil {
		return c.ioError(err)
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
	binary := contains(encs, Binary) && !text
	var p, n int
	if _, err := fmt.Sscan(f[3], &p); err != nil || p < 1 {
		return fmt.Errorf("dimension p = %q must be a positive integer", f[3])
	}
	if _, err := fmt.Sscan(f[4], &n); err != nil || n < 1 || n > math.MaxInt32 {
		return fmt.Errorf("number of examples N = %q must be an integer in [1, %d]", f[4], math.MaxInt32)
	}
	names := f[5:]
	if len(names) != p {
		return fmt.Errorf("%d parameter names for dimension p = %d", len(names), p)
	}
	seen := map[string]bool{}
	for _, s := range names {
		if seen[s] {
			return fmt.Errorf("parameter name %q appears twice", s)
		}
		seen[s] = true
	}
	if first {
		m.p, m.n, m.names, m.binary = p, n, names, binary
	} else if p != m.p || n != m.n || binary != m.binary || !slices.Equal(names, m.names) {
		return fmt.Errorf("this copy's handshake %q differs from the first copy's (p = %d, N = %d, names %v): each copy of the model must read the same data", clip(string(line)), m.p, m.n, m.names)
	}
	enc := Text
	if m.binary {
		enc = Binary
	}
	c.in.SetWriteDeadline(time.Now().Add(m.timeout))
	_, err = fmt.Fprintf(c.in, "fresgld %d %s\n", Version, enc)
	c.vals = make([]float64, 4+4*m.p)
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

// Procs is the number of copies of the model process.
func (m *Model) Procs() int { return len(m.procs) }

// Requests is the number of requests sent so far (round trips), over all
// copies.
func (m *Model) Requests() int64 { return m.calls.Load() }

// Err is the failure that stopped the model, nil while it works.
func (m *Model) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// Close ends the model: each process's standard input is closed, which a
// model takes as the end, and it is killed if it has not exited within the
// timeout. Close waits for requests in progress, and returns the first
// failure, if any.
func (m *Model) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return m.Err()
	}
	m.closed = true
	m.mu.Unlock()
	if m.free != nil {
		for range m.procs { // every copy, once it is free
			<-m.free
		}
	}
	var wg sync.WaitGroup
	for _, c := range m.procs {
		wg.Add(1)
		go func() { defer wg.Done(); c.close() }()
	}
	wg.Wait()
	for _, c := range m.procs { // a later request fails, not waits
		m.free <- c
	}
	return m.Err()
}

func (c *proc) close() {
	c.in.Close()
	select {
	case <-c.done:
	case <-time.After(c.m.timeout):
		c.kill()
	}
	c.out.Close()
}

// kill ends the process group and waits for it.
func (c *proc) kill() {
	procgroup.Kill(c.cmd)
	<-c.done
}

// take waits for a free process; put gives it back.
func (m *Model) take() *proc { return <-m.free }
func (m *Model) put(c *proc) { m.free <- c }

// Prior answers from a recent terms reply when it was at the same state.
func (m *Model) Prior(grad, theta []float64) float64 {
	if u, ok := m.cachedPrior(grad, theta); ok {
		return u
	}
	c := m.take()
	defer m.put(c)
	if u, ok := m.ask(c, request{method: "prior", grad: grad != nil, x: theta}, grad, theta); !ok {
		return u
	}
	copy(grad, c.vals[1:])
	return c.vals[0]
}

func (m *Model) cachedPrior(grad, theta []float64) (float64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.prior {
		e := &m.prior[i]
		if e.ok && (grad == nil || e.grad) && same(e.x, theta) {
			copy(grad, e.g)
			return e.u, true
		}
	}
	return 0, false
}

func same(a, b []float64) bool {
	for j, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[j]) {
			return false
		}
	}
	return true
}

// keepPrior keeps the prior of c's last reply, at x, in the ring.
func (m *Model) keepPrior(c *proc, x []float64, grad bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := &m.prior[m.next]
	m.next = (m.next + 1) % len(m.prior)
	e.ok, e.grad, e.u = true, grad, c.vals[0]
	copy(e.x, x)
	if grad {
		copy(e.g, c.vals[1:1+m.p])
	}
}

// Term is a batch of one example.
func (m *Model) Term(grad, theta []float64, i int) float64 {
	c := m.take()
	defer m.put(c)
	c.one[0] = int32(i)
	mo := energy.Moments{G: grad} // a batch of one: its sums are zero
	c.batch(&mo, theta, nil, c.one[:], false)
	return mo.U
}

func (m *Model) Batch(mo *energy.Moments, x, y []float64, idx []int32) {
	c := m.take()
	defer m.put(c)
	c.batch(mo, x, y, idx, idx == nil)
}

func (c *proc) batch(mo *energy.Moments, x, y []float64, idx []int32, all bool) {
	m := c.m
	c.req = request{method: "terms", grad: mo.G != nil, x: x, y: y, idx: idx, all: all}
	switch c.call() {
	case failed:
		mo.U, mo.USum, mo.USq = nan(mo.G), nan(mo.GSum), nan(mo.GSq)
		return
	case rejected:
		mo.U = outside(mo.G)
		mo.USum, mo.USq = 0, 0
		clear(mo.GSum)
		clear(mo.GSq)
		return
	}
	v := c.vals
	m.keepPrior(c, x, mo.G != nil)
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

// U is U_0(θ) + Σ_i U_i(θ): one request over all examples, whose reply
// carries the prior.
func (m *Model) U(theta []float64) float64 { return m.UGrad(nil, theta) }

// Grad writes ∇U(θ) into grad, one request.
func (m *Model) Grad(grad, theta []float64) { m.UGrad(grad, theta) }

// UGrad writes ∇U(θ) into grad (nil: the energy alone) and returns U(θ),
// one request over all examples. The sums are energy.Full's over this
// model, bit for bit: U_0 + (USum + N·U), and ∇U_0 + (GSum + N·G).
func (m *Model) UGrad(grad, theta []float64) float64 {
	c := m.take()
	defer m.put(c)
	if u, ok := m.ask(c, request{method: "terms", grad: grad != nil, x: theta, all: true}, grad, theta); !ok {
		return u
	}
	v, p, n := c.vals, m.p, float64(m.n)
	if grad == nil {
		return v[0] + (v[2] + n*v[1])
	}
	g, gsum := v[1+p+3:1+2*p+3], v[1+2*p+3:1+3*p+3]
	for j := range grad {
		grad[j] = v[1+j] + (gsum[j] + n*g[j])
	}
	return v[0] + (v[1+p+1] + n*v[1+p])
}

// ask sends req, at state theta, on the process c taken for it: ok, with
// the reply in c and the prior's part of it kept; or not, with u the
// energy of a failed request (NaN) or a rejected state (outside), grad
// set to match.
func (m *Model) ask(c *proc, req request, grad, theta []float64) (u float64, ok bool) {
	c.req = req
	switch c.call() {
	case failed:
		return nan(grad), false
	case rejected:
		return outside(grad), false
	}
	m.keepPrior(c, theta, grad != nil)
	return 0, true
}

func nan(g []float64) float64 {
	for j := range g {
		g[j] = math.NaN()
	}
	return math.NaN()
}

// outside is the energy of a state the model rejects, +Inf: a sampler
// rejects a proposal there. Its gradient is set to 0, so that a proposal
// ratio that reads it stays −∞, not NaN.
func outside(g []float64) float64 {
	clear(g)
	return math.Inf(1)
}

// The outcomes of a request.
type outcome int

const (
	answered outcome = iota
	rejected         // the model rejected the state (a reject reply)
	failed           // the model failed: Err says how
)

// call sends c.req and reads its reply into c.vals. On failure it kills
// the process and keeps the first error; a reject reply is counted and its
// message kept.
func (c *proc) call() outcome {
	m := c.m
	m.mu.Lock()
	err, closed := m.err, m.closed
	m.mu.Unlock()
	if err != nil {
		return failed
	}
	if closed {
		c.fail(errors.New("the model was closed"))
		return failed
	}
	m.calls.Add(1)
	if err := c.exchange(); err != nil {
		var rej rejection
		if errors.As(err, &rej) {
			m.rejects.Add(1)
			m.mu.Lock()
			m.lastReject = string(rej)
			m.mu.Unlock()
			return rejected
		}
		c.kill()
		c.fail(err)
		return failed
	}
	return answered
}

// rejection is a reject reply's message.
type rejection string

func (r rejection) Error() string { return "the model rejected the state: " + string(r) }

// Rejected is the number of states the model rejected and the message of
// the latest.
func (m *Model) Rejected() (int64, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rejects.Load(), m.lastReject
}

// fail keeps the first failure of any process.
func (c *proc) fail(err error) {
	err = c.failure(c.describe(), err)
	m := c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err == nil {
		m.err = err
	}
}

func (c *proc) exchange() error {
	m := c.m
	r := &c.req
	want := r.values(m.p)
	c.buf = appendRequest(c.buf[:0], r, m.binary)
	c.in.SetWriteDeadline(time.Now().Add(m.timeout))
	if _, err := c.in.Write(c.buf); err != nil {
		return c.ioError(err)
	}
	c.out.SetReadDeadline(time.Now().Add(m.timeout))
	line, err := readLine(c.r)
	if err != nil {
		return c.ioError(err)
	}
	c.toks = fields(c.toks, line)
	if len(c.toks) > 0 && string(c.toks[0]) == "error" {
		return fmt.Errorf("the model answered: %s", clip(string(bytes.TrimSpace(line[len("error"):]))))
	}
	if len(c.toks) > 0 && string(c.toks[0]) == "reject" {
		return rejection(clip(string(bytes.TrimSpace(line[len("reject"):]))))
	}
	if len(c.toks) == 0 || string(c.toks[0]) != "ok" {
		return fmt.Errorf("the reply %q starts with none of ok, reject or error", clip(string(line)))
	}
	vals := c.vals[:want]
	if m.binary {
		if len(c.toks) != 2 {
			return fmt.Errorf("the binary reply header %q is not \"ok <count>\"", clip(string(line)))
		}
		got, err := parseInt(c.toks[1])
		if err != nil || got != want {
			return fmt.Errorf("the reply carries %q values, want %d", c.toks[1], want)
		}
		if c.raw, err = readBinary(c.r, vals, c.raw); err != nil {
			return c.ioError(err)
		}
	} else {
		if got := len(c.toks) - 1; got != want {
			return fmt.Errorf("the reply carries %d values, want %d (%s)", got, want, layout(r, m.p))
		}
		if err := parseFloats(vals, c.toks[1:], "reply"); err != nil {
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
func (c *proc) ioError(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("no reply within the timeout of %v (the model was killed)", c.m.timeout)
	}
	select {
	case <-c.done:
	case <-time.After(time.Second):
	}
	select {
	case <-c.done:
		if c.wait != nil {
			return fmt.Errorf("the model exited (%v) before it answered", c.wait)
		}
		return errors.New("the model exited (status 0) before it answered")
	default:
		return err
	}
}
