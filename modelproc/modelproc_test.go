package modelproc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/models"
)

// The test binary doubles as the model process: with MODELPROC_PEER set it
// serves (or misbehaves, as the variable says) instead of running tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("MODELPROC_PEER"); mode != "" {
		os.Exit(peer(mode))
	}
	os.Exit(m.Run())
}

// synth is the model both sides compute: logistic regression on N
// simulated examples of p features, seeded.
func synth(N, p int) energy.Terms {
	l, _, err := models.SyntheticLogistic(N, p, 1, 7)
	if err != nil {
		panic(err)
	}
	return l
}

func names(p int) []string {
	s := make([]string, p)
	for j := range s {
		s[j] = fmt.Sprintf("beta.%d", j+1)
	}
	return s
}

func peer(mode string) int {
	N, _ := strconv.Atoi(os.Getenv("MODELPROC_N"))
	p, _ := strconv.Atoi(os.Getenv("MODELPROC_P"))
	switch mode {
	case "serve", "text", "echo", "echo-text", "gated":
		var t energy.Terms = synth(N, p)
		if strings.HasPrefix(mode, "echo") {
			t = zeros{p, N}
		}
		if mode == "gated" {
			t = gated{t, os.Getenv("MODELPROC_GATE")}
		}
		if err := Serve(t, names(p), mode == "serve" || mode == "echo", os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	fmt.Printf("%s %d text %d %d %s\n", Magic, Version, p, N, strings.Join(names(p), " "))
	var line string
	fmt.Scanln(&line) // the encoding
	fmt.Scanln(&line) // the first request's method
	switch mode {
	case "crash":
		fmt.Fprintln(os.Stderr, "Traceback: something broke")
		return 3
	case "hang":
		time.Sleep(time.Minute)
	case "nan", "short":
		vals := make([]string, 1+p) // a prior with gradient
		for j := range vals {
			vals[j] = "0.5"
		}
		if mode == "nan" {
			vals[2] = "nan"
		} else {
			vals = vals[1:]
		}
		fmt.Println("ok " + strings.Join(vals, " "))
	case "error":
		fmt.Println("error log of a negative number")
	}
	time.Sleep(time.Minute) // until killed
	return 0
}

// zeros is a model that computes nothing, all its values 0: over a
// process, its requests cost the protocol alone.
type zeros struct{ p, n int }

func (z zeros) Dim() int                           { return z.p }
func (z zeros) Len() int                           { return z.n }
func (z zeros) Term(g, _ []float64, _ int) float64 { clear(g); return 0 }
func (z zeros) Prior(g, _ []float64) float64       { clear(g); return 0 }
func (z zeros) Batch(m *energy.Moments, _, _ []float64, _ []int32) {
	m.U, m.USum, m.USq = 0, 0, 0
	clear(m.G)
	clear(m.GSum)
	clear(m.GSq)
}

// command runs this test binary as a model process in the given mode.
func command(mode string, N, p int) string {
	return fmt.Sprintf("MODELPROC_PEER=%s MODELPROC_N=%d MODELPROC_P=%d exec '%s'", mode, N, p, os.Args[0])
}

func start(t testing.TB, mode string, N, p int, o Options) *Model {
	m, err := Start(command(mode, N, p), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// The process answers every request with the in-process model's values
// bit for bit: both encodings carry float64s exactly.
func TestMatchesInProcess(t *testing.T) {
	const N, p = 60, 4
	in := energy.NewPerTerm(synth(N, p))
	for _, mode := range []string{"serve", "text"} {
		m := start(t, mode, N, p, Options{})
		if m.Binary() != (mode == "serve") {
			t.Errorf("%s: binary = %v", mode, m.Binary())
		}
		if got := strings.Join(m.Names(), " "); got != strings.Join(names(p), " ") || m.Dim() != p || m.Len() != N {
			t.Errorf("%s: handshake p = %d, N = %d, names %q", mode, m.Dim(), m.Len(), got)
		}
		if err := compare(in, m); err != nil {
			t.Errorf("%s: %v", mode, err)
		}
		if err := m.Close(); err != nil {
			t.Errorf("%s: %v", mode, err)
		}
	}
}

// compare asks a and b the same requests and returns their first
// difference.
func compare(a, b energy.BatchTerms) error {
	p, N := a.Dim(), a.Len()
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := make([]float64, p), make([]float64, p)
	for j := range x {
		x[j], y[j] = rng.NormFloat64(), rng.NormFloat64()
	}
	newM := func(grad bool) *energy.Moments {
		if !grad {
			return &energy.Moments{}
		}
		return &energy.Moments{G: make([]float64, p), GSum: make([]float64, p), GSq: make([]float64, p)}
	}
	flat := func(m *energy.Moments) []float64 {
		return append(append(append([]float64{m.U, m.USum, m.USq}, m.G...), m.GSum...), m.GSq...)
	}
	idx := energy.NewIndices(N).Draw(rng, 9)
	for _, grad := range []bool{false, true} {
		for _, yy := range [][]float64{nil, y} {
			for _, ix := range [][]int32{idx, nil} {
				ma, mb := newM(grad), newM(grad)
				a.Batch(ma, x, yy, ix)
				b.Batch(mb, x, yy, ix)
				if fa, fb := flat(ma), flat(mb); fmt.Sprint(fa) != fmt.Sprint(fb) {
					return fmt.Errorf("batch (gradient %v, difference %v, %d listed examples): %v, want %v", grad, yy != nil, len(ix), fb, fa)
				}
			}
		}
		var ga, gb []float64
		if grad {
			ga, gb = make([]float64, p), make([]float64, p)
		}
		if ua, ub := a.Prior(ga, y), b.Prior(gb, y); ua != ub || fmt.Sprint(ga) != fmt.Sprint(gb) {
			return fmt.Errorf("prior: %v %v, want %v %v", ub, gb, ua, ga)
		}
		if ua, ub := a.Term(ga, x, 5), b.Term(gb, x, 5); ua != ub || fmt.Sprint(ga) != fmt.Sprint(gb) {
			return fmt.Errorf("term: %v %v, want %v %v", ub, gb, ua, ga)
		}
	}
	return nil
}

// An estimator over the process draws what it draws over the in-process
// model, bit for bit, and the prior a batch reply carries spares the prior
// request (the reply would differ if a stale prior were served: the prior
// is asked at a new state after each batch).
func TestMinibatchOverProcess(t *testing.T) {
	const N, p, n = 80, 3, 10
	in := energy.NewPerTerm(synth(N, p))
	m := start(t, "serve", N, p, Options{})
	a, _ := energy.NewMinibatch(in, n)
	b, _ := energy.NewMinibatch(m, n)
	ra, rb := rand.New(rand.NewPCG(1, 1)), rand.New(rand.NewPCG(1, 1))
	th := []float64{0.1, -0.3, 0.2}
	ga, va, gb, vb := make([]float64, p), make([]float64, p), make([]float64, p), make([]float64, p)
	for k := range 5 {
		th[k%p] += 0.1
		a.Grad(ga, va, th, ra)
		b.Grad(gb, vb, th, rb)
		ua, sa := a.Energy(th, ra)
		ub, sb := b.Energy(th, rb)
		if fmt.Sprint(ga, va, ua, sa) != fmt.Sprint(gb, vb, ub, sb) {
			t.Fatalf("draw %d: process %v %v %v %v, in process %v %v %v %v", k, gb, vb, ub, sb, ga, va, ua, sa)
		}
	}
	if err := m.Err(); err != nil {
		t.Fatal(err)
	}
}

// A request costs no allocation on either encoding.
func TestNoAllocs(t *testing.T) {
	const N, p = 50, 3
	for _, mode := range []string{"serve", "text"} {
		m := start(t, mode, N, p, Options{})
		mo := &energy.Moments{G: make([]float64, p), GSum: make([]float64, p), GSq: make([]float64, p)}
		x, idx := []float64{0.1, 0.2, 0.3}, []int32{1, 5, 7}
		if a := testing.AllocsPerRun(20, func() {
			m.Batch(mo, x, nil, idx)
			x[0] += 1e-3
			m.Prior(mo.G, x)
		}); a != 0 {
			t.Errorf("%s: %v allocations per request pair", mode, a)
		}
	}
}

// Each failure stops the model with an error naming the request and the
// cause; the failing call and every later one answer NaN.
func TestFailures(t *testing.T) {
	const N, p = 20, 2
	for _, c := range []struct{ mode, want string }{
		{"crash", "exited (exit status 3)"},
		{"hang", "no reply within the timeout of 300ms"},
		{"nan", "reply value 3 (∇U_0[1]) is NaN"},
		{"short", "the reply carries 2 values, want 3 (U_0, ∇U_0 (2))"},
		{"error", "the model answered: log of a negative number"},
	} {
		m := start(t, c.mode, N, p, Options{Timeout: 300 * time.Millisecond})
		g := make([]float64, p)
		start := time.Now()
		u := m.Prior(g, []float64{0.25, -1})
		if !math.IsNaN(u) || !math.IsNaN(g[0]) {
			t.Errorf("%s: prior %v %v, want NaN", c.mode, u, g)
		}
		err := m.Err()
		if err == nil {
			t.Fatalf("%s: no error", c.mode)
		}
		for _, w := range []string{c.want, "request prior with gradient at θ = [0.25 -1]", "MODELPROC_PEER=" + c.mode} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.mode, err, w)
			}
		}
		if c.mode == "crash" && !strings.Contains(err.Error(), "Traceback: something broke") {
			t.Errorf("crash: error %q does not quote the model's standard error", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: the failure took %v", c.mode, d)
		}
		mo := &energy.Moments{}
		m.Batch(mo, []float64{0, 0}, nil, nil)
		if !math.IsNaN(mo.U) || m.Err() != err {
			t.Errorf("%s: after the failure, a batch gives %v and error %v", c.mode, mo.U, m.Err())
		}
	}
}

// A model whose handshake is wrong is refused at Start, saying why.
func TestHandshakeErrors(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"echo hello", `the first line "hello" is not a handshake`},
		{"echo fresgld-model 2 text 1 5 a", `protocol version "2"`},
		{"echo fresgld-model 1 text 2 5 a", "1 parameter names for dimension p = 2"},
		{"echo fresgld-model 1 text 2 5 a a", `parameter name "a" appears twice`},
		{"echo fresgld-model 1 text 0 5", "dimension p"},
		{"exit 4", "exited (exit status 4)"},
		{"no-such-model-command-here", "no-such-model-command-here"},
	} {
		_, err := Start(c.cmd, Options{Timeout: 2 * time.Second})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "handshake") {
			t.Errorf("%s: error %v, want one saying %q at the handshake", c.cmd, err, c.want)
		}
	}
}

// BenchmarkRoundTrip times one terms request with gradients for p = 100
// and a batch of 100 examples: in process (the same arithmetic, PerTerm over
// the same model), and over a process in each encoding; then the same for
// a model that computes nothing (zeros), whose time over a process is the
// protocol's cost alone.
func BenchmarkRoundTrip(b *testing.B) {
	const N, p, n = 1000, 100, 100
	in := energy.NewPerTerm(synth(N, p))
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, p)
	for j := range x {
		x[j] = 0.1 * rng.NormFloat64()
	}
	idx := append([]int32(nil), energy.NewIndices(N).Draw(rng, n)...)
	for _, mode := range []string{"inprocess", "text", "binary", "zeros-text", "zeros-binary"} {
		b.Run(fmt.Sprintf("p=%d/n=%d/%s", p, n, mode), func(b *testing.B) {
			var t energy.BatchTerms = in
			switch mode {
			case "text":
				t = start(b, "text", N, p, Options{})
			case "binary":
				t = start(b, "serve", N, p, Options{})
			case "zeros-text":
				t = start(b, "echo-text", N, p, Options{})
			case "zeros-binary":
				t = start(b, "echo", N, p, Options{})
			}
			mo := &energy.Moments{G: make([]float64, p), GSum: make([]float64, p), GSq: make([]float64, p)}
			b.ReportAllocs()
			for b.Loop() {
				t.Batch(mo, x, nil, idx)
			}
		})
	}
}

// Chains share one model: requests from several goroutines at once are
// served one at a time, each getting its own answer (run with -race).
func TestConcurrentRequests(t *testing.T) {
	const N, p = 40, 3
	model := synth(N, p)
	m := start(t, "serve", N, p, Options{})
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			in := energy.NewPerTerm(model) // its buffers are its own
			x := []float64{0.1 * float64(g), -0.2, 0.3}
			idx := []int32{int32(g), int32(g + 7), int32(g + 20)}
			for range 50 {
				a := &energy.Moments{G: make([]float64, p), GSum: make([]float64, p), GSq: make([]float64, p)}
				b := &energy.Moments{G: make([]float64, p), GSum: make([]float64, p), GSq: make([]float64, p)}
				in.Batch(a, x, nil, idx)
				m.Batch(b, x, nil, idx)
				ua, ub := in.Prior(nil, x), m.Prior(nil, x)
				if fmt.Sprint(*a, ua) != fmt.Sprint(*b, ub) {
					errs <- fmt.Errorf("goroutine %d: %v %v, want %v %v", g, *b, ub, *a, ua)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
