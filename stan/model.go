package stan

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fresgld/fresgld/energy"
)

// Model is a compiled Stan model with its data.
type Model struct {
	Bin  *Binary
	Data string // the data as an R dump ("": none)
	// Unconstrained are the names of the coordinates the sampler moves,
	// Stan's unconstrained parameters; Constrained the columns of Stan's
	// draws: the parameters (the first Params), the transformed
	// parameters (the next Transformed), then the generated quantities.
	Unconstrained, Constrained []string
	Params, Transformed        int
	ModelName                  string
}

// Open compiles the model in stanPath (or finds it compiled), converts
// the data in dataPath ("" for none) and reads the model's names, which
// also checks the data against the model's declarations before any
// sampling.
func Open(ctx context.Context, stanPath, dataPath, cacheDir string, log io.Writer) (*Model, error) {
	bin, err := Compile(ctx, stanPath, cacheDir, log)
	if err != nil {
		return nil, err
	}
	m := &Model{Bin: bin}
	dump, err := ReadData(dataPath)
	if err != nil {
		return nil, fmt.Errorf("--data: %w", err)
	}
	if dump != nil {
		sum := sha256.Sum256(dump)
		m.Data = filepath.Join(filepath.Dir(bin.Path), "data-"+hex.EncodeToString(sum[:8])+".R")
		if err := writeOnce(m.Data, dump); err != nil {
			return nil, err
		}
	}
	out, err := m.run(ctx, nil, "info", m.Data)
	if err != nil {
		what := "--stan " + stanPath
		if dataPath != "" {
			what += " with --data " + dataPath
		}
		return nil, fmt.Errorf("%s: the model does not accept its data: %w", what, err)
	}
	if err := m.parseInfo(out); err != nil {
		return nil, err
	}
	if len(m.Unconstrained) == 0 {
		return nil, fmt.Errorf("--stan %s: the model has no parameters to sample", stanPath)
	}
	return m, nil
}

// writeOnce writes b to path through a temporary file, unless path holds
// it already (another run's).
func writeOnce(path string, b []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".data-")
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}

func (m *Model) parseInfo(out []byte) error {
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "model":
			m.ModelName = f[1]
		case "unconstrained":
			m.Unconstrained = f[2:]
		case "constrained":
			m.Constrained = f[2:]
		case "parameters":
			m.Params, _ = strconv.Atoi(f[1])
		case "transformed":
			m.Transformed, _ = strconv.Atoi(f[1])
		}
	}
	if m.ModelName == "" || m.Params+m.Transformed > len(m.Constrained) {
		return fmt.Errorf("the compiled model %s answered %q to info", m.Bin.Path, out)
	}
	return nil
}

// Command is the shell command of the model's process (fresgld sample
// --model-cmd runs it).
func (m *Model) Command() string {
	return shellQuote(m.Bin.Path) + " serve " + shellQuote(m.Data)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// run runs the program once in mode with args, stdin from in; an error
// carries what it said on stderr.
func (m *Model) run(ctx context.Context, in []byte, mode string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, m.Bin.Path, append([]string{mode}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if in != nil {
		cmd.Stdin = bytes.NewReader(in)
	}
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return nil, err
		}
		return nil, errors.New(lastLines(msg, 10))
	}
	return out, nil
}

// Init reads an init file (JSON or an R dump, as the data) and returns
// the unconstrained state it gives: Stan's transform_inits.
func (m *Model) Init(ctx context.Context, path string) ([]float64, error) {
	dump, err := ReadData(path)
	if err != nil {
		return nil, fmt.Errorf("--init: %w", err)
	}
	f, err := os.CreateTemp("", "fresgld-init-*.R")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(dump)
	if err := errors.Join(werr, f.Close()); err != nil {
		return nil, err
	}
	out, err := m.run(ctx, nil, "init", m.Data, f.Name())
	if err != nil {
		return nil, fmt.Errorf("--init %s: %w", path, err)
	}
	var x []float64
	for _, s := range strings.Fields(string(out)) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("--init %s: the model answered %q", path, out)
		}
		x = append(x, v)
	}
	if len(x) != len(m.Unconstrained) {
		return nil, fmt.Errorf("--init %s: %d values for %d unconstrained parameters", path, len(x), len(m.Unconstrained))
	}
	for j, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("--init %s: %s is %v on the unconstrained scale (a value on its constraint's boundary)", path, m.Unconstrained[j], v)
		}
	}
	return x, nil
}

// Writer maps unconstrained draws to Stan's draws (Model.Constrained)
// through one process of the model's program; it is safe for concurrent
// use. The generated quantities' random numbers are seeded by seed and the
// draw itself, so a draw gets the same values whenever it is written.
type Writer struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *capped
	p, m   int
	buf    []byte
	err    error
}

// NewWriter starts the writer's process.
func (m *Model) NewWriter(seed uint64) (*Writer, error) {
	w := &Writer{p: len(m.Unconstrained), m: len(m.Constrained), stderr: &capped{max: 4096}}
	w.cmd = exec.Command(m.Bin.Path, "write", m.Data, strconv.FormatUint(seed, 10))
	w.cmd.Stderr = w.stderr
	var err error
	if w.in, err = w.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w.out = bufio.NewReader(out)
	if err := w.cmd.Start(); err != nil {
		return nil, err
	}
	w.buf = make([]byte, 8*max(w.p, w.m))
	return w, nil
}

// Write fills out (len(Constrained) values) from theta; after a failure of
// the process, every value is NaN and Err says why.
func (w *Writer) Write(out, theta []float64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = w.exchange(out, theta)
	}
	if w.err != nil {
		for j := range out {
			out[j] = math.NaN()
		}
	}
}

func (w *Writer) exchange(out, theta []float64) error {
	b := w.buf[:8*w.p]
	for j, v := range theta {
		binary.LittleEndian.PutUint64(b[8*j:], math.Float64bits(v))
	}
	if _, err := w.in.Write(b); err != nil {
		return fmt.Errorf("Stan's draws: %w", err)
	}
	b = w.buf[:8*w.m]
	if _, err := io.ReadFull(w.out, b); err != nil {
		return fmt.Errorf("Stan's draws: the model's program failed: %v %s", err, strings.TrimSpace(w.stderr.String()))
	}
	for j := range out {
		out[j] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*j:]))
	}
	return nil
}

// Messages are what the model said while writing draws (a generated
// quantity that threw, with its message), and Err the failure that
// stopped it, if any.
func (w *Writer) Messages() string {
	return w.stderr.String()
}

func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Close ends the process.
func (w *Writer) Close() error {
	w.in.Close()
	return w.cmd.Wait()
}

// capped keeps the first max bytes written to it and counts the lines of
// the rest; it is safe for concurrent use.
type capped struct {
	mu      sync.Mutex
	max     int
	b       []byte
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := min(c.max-len(c.b), len(p))
	c.b = append(c.b, p[:room]...)
	c.dropped += bytes.Count(p[room:], []byte("\n"))
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := string(c.b)
	if c.dropped > 0 {
		s += fmt.Sprintf("… and %d more lines\n", c.dropped)
	}
	return s
}

// Start is where a Stan model's chains start on the unconstrained scale,
// as Stan starts them: the user's init when given (its density must be
// finite); else θ = 0 (nil) where the density and its gradient are finite
// there; else the first of up to 100 draws uniform in (−2, 2) in each
// coordinate where they are. note says what was done, "" for θ = 0. ugrad
// is the model's energy and gradient (+Inf or NaN where it rejects).
func Start(ugrad func(g, x []float64) float64, p int, init []float64, seed uint64) (start []float64, note string, err error) {
	g := make([]float64, p)
	finite := func(x []float64) bool { return energy.Finite(ugrad(g, x), g) }
	if init != nil {
		if !finite(init) {
			return nil, "", errors.New("--init: the model's log density or its gradient is not finite there")
		}
		return init, "start: --init", nil
	}
	x := make([]float64, p)
	if finite(x) {
		return nil, "", nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x5a7))
	const tries = 100
	for k := 1; k <= tries; k++ {
		for j := range x {
			x[j] = -2 + 4*rng.Float64()
		}
		if finite(x) {
			return x, fmt.Sprintf("start: the log density or its gradient is not finite at θ = 0 on the unconstrained scale, so the search starts uniform in (−2, 2) there, as Stan's chains do (draw %d of at most %d)", k, tries), nil
		}
	}
	return nil, "", fmt.Errorf("no start: the log density or its gradient is not finite at θ = 0 on the unconstrained scale nor at %d draws uniform in (−2, 2) there (Stan's starts); give a start with --init", tries)
}

// GradTime is the model's own cost of a gradient, measured in its program
// without the protocol: the mean of n at θ = 0.1 in every coordinate.
func (m *Model) GradTime(ctx context.Context, n int) (time.Duration, error) {
	out, err := m.run(ctx, nil, "time", m.Data, strconv.Itoa(n))
	if err != nil {
		return 0, err
	}
	ns, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		return 0, fmt.Errorf("the model's program answered %q to time", out)
	}
	return time.Duration(ns), nil
}
