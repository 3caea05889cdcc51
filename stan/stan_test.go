package stan

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fresgld/fresgld/modelproc"
)

// testCache is where the tests' models are compiled, kept between runs
// (a compilation takes about 40 s): the user's cache folder, as a run's.
func openTest(t testing.TB, model, data string) *Model {
	t.Helper()
	if _, err := FindToolchain(); err != nil {
		t.Skipf("no Stan toolchain, the Stan bridge is not tested: %v", err)
	}
	m, err := Open(context.Background(), filepath.Join("testdata", model), data, "", os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// normalU is testdata/normal.stan's energy, −log p(θ) with Stan's
// constants dropped (propto) and the Jacobian of σ = e^θ₂ kept: its
// statements are
// y ~ normal(μ, σ), μ ~ normal(0, 10), σ ~ exponential(1).
func normalU(theta []float64) float64 {
	y := []float64{1.0, 2.5, 0.3}
	mu, s := theta[0], math.Exp(theta[1])
	u := float64(len(y))*math.Log(s) + mu*mu/200 + s - theta[1]
	for _, v := range y {
		u += (v - mu) * (v - mu) / (2 * s * s)
	}
	return u
}

func TestNormalModel(t *testing.T) {
	m := openTest(t, "normal.stan", filepath.Join("testdata", "normal.json"))
	if got := strings.Join(m.Unconstrained, " "); got != "mu sigma" {
		t.Errorf("unconstrained names %q", got)
	}
	if got := strings.Join(m.Constrained, " "); got != "mu sigma a12 yrep" || m.Params != 2 || m.Transformed != 1 {
		t.Errorf("constrained names %q, %d parameters, %d transformed", got, m.Params, m.Transformed)
	}
	mp, err := modelproc.Start(m.Command(), modelproc.Options{Stderr: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer mp.Close()
	if !mp.Binary() {
		t.Error("the model does not speak binary")
	}
	// The energy against the closed form, the gradient against its
	// central differences (error O(h²) ≈ 1e-10 at h = 1e-5, far below
	// the tolerance 1e-6).
	g := make([]float64, 2)
	for _, th := range [][]float64{{0.3, -0.2}, {-2, 1.5}, {4, 0}} {
		u := mp.UGrad(g, th)
		if want := normalU(th); math.Abs(u-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("U(%v) = %.15g, want %.15g", th, u, want)
		}
		for j := range th {
			const h = 1e-5
			a, b := append([]float64(nil), th...), append([]float64(nil), th...)
			a[j] += h
			b[j] -= h
			if fd := (normalU(a) - normalU(b)) / (2 * h); math.Abs(g[j]-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("∂U/∂θ%d at %v = %.10g, central difference %.10g", j+1, th, g[j], fd)
			}
		}
	}
	// A state the model rejects is +Inf, with a zero gradient, and the
	// process goes on answering.
	if u := mp.UGrad(g, []float64{60, 0}); !math.IsInf(u, 1) || g[0] != 0 || g[1] != 0 {
		t.Errorf("at μ = 60, beyond the model's reject(): U = %v, ∇U = %v, want +Inf and 0", u, g)
	}
	if n, msg := mp.Rejected(); n != 1 || !strings.Contains(msg, "beyond 50") {
		t.Errorf("rejected %d, message %q", n, msg)
	}
	if u := mp.U([]float64{0.3, -0.2}); math.Abs(u-normalU([]float64{0.3, -0.2})) > 1e-12 || mp.Err() != nil {
		t.Errorf("after a reject: U = %v, err %v", u, mp.Err())
	}
	if u := mp.U([]float64{math.NaN(), 0}); !math.IsInf(u, 1) {
		t.Errorf("at μ = NaN: U = %v, want +Inf (Stan's check rejects it)", u)
	}
}

func TestWriterGivesStansDraws(t *testing.T) {
	m := openTest(t, "normal.stan", filepath.Join("testdata", "normal.json"))
	w, err := m.NewWriter(7)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	out := make([]float64, len(m.Constrained))
	w.Write(out, []float64{0.5, math.Log(2)})
	// a12 = A[1, 2]·μ: A is [[1, 2, 3], [4, 5, 6]] in the JSON, so A[1, 2]
	// is 2 when the dump holds it column-major (3 if it held it as JSON
	// nests it, 4 if transposed).
	if out[0] != 0.5 || math.Abs(out[1]-2) > 1e-15 || out[2] != 1 {
		t.Errorf("draw (μ, σ, a12) = %v, want (0.5, 2, 1)", out[:3])
	}
	// yrep ~ N(μ, σ) given the draw: over n draws at μ = 0, σ = 1 (each a
	// different state, by the last bits of μ, so each seeds its own
	// numbers) its mean is within 4/√n and its variance within 4·√(2/n)
	// of 1.
	const n = 4000
	var sum, sq float64
	var wg sync.WaitGroup
	ys := make([]float64, n)
	for k := range n {
		wg.Add(1)
		go func() { // Write is safe for concurrent use
			defer wg.Done()
			o := make([]float64, len(m.Constrained))
			w.Write(o, []float64{float64(k) * 1e-12, 0})
			ys[k] = o[3]
		}()
	}
	wg.Wait()
	for _, y := range ys {
		sum += y
		sq += y * y
	}
	mean := sum / n
	v := sq/n - mean*mean
	if !(math.Abs(mean) < 4/math.Sqrt(n)) || !(math.Abs(v-1) < 4*math.Sqrt(2.0/n)) {
		t.Errorf("yrep over %d draws: mean %.4f, variance %.4f, want 0 and 1", n, mean, v)
	}
	// The same draw gets the same generated quantities.
	a, b := make([]float64, 4), make([]float64, 4)
	w.Write(a, []float64{0.1, 0.2})
	w.Write(b, []float64{0.1, 0.2})
	if a[3] != b[3] {
		t.Errorf("yrep at one draw: %v, then %v", a[3], b[3])
	}
	if w.Err() != nil {
		t.Error(w.Err())
	}
}

func TestInit(t *testing.T) {
	m := openTest(t, "normal.stan", filepath.Join("testdata", "normal.json"))
	x, err := m.Init(context.Background(), filepath.Join("testdata", "normal_init.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(x) != 2 || x[0] != 0.5 || math.Abs(x[1]-math.Log(2)) > 1e-15 {
		t.Errorf("init (μ, log σ) = %v, want (0.5, %v)", x, math.Log(2))
	}
}

func TestDataTheModelRefuses(t *testing.T) {
	if _, err := FindToolchain(); err != nil {
		t.Skipf("no Stan toolchain: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"N": 4, "y": [1, 2, 3], "A": [[1, 2, 3], [4, 5, 6]]}`), 0o644)
	_, err := Open(context.Background(), filepath.Join("testdata", "normal.stan"), bad, "", os.Stderr)
	if err == nil || !strings.Contains(err.Error(), "does not accept its data") || !strings.Contains(err.Error(), "y") {
		t.Errorf("y of length 3 where N = 4: %v", err)
	}
}

func TestNewSyntaxIsExplained(t *testing.T) {
	tc, err := FindToolchain()
	if err != nil {
		t.Skipf("no Stan toolchain: %v", err)
	}
	if !strings.HasPrefix(tc.StanVersion, "2.2") || tc.StanVersion >= "2.26" {
		t.Skipf("Stan %s reads the newer syntax", tc.StanVersion)
	}
	_, err = Compile(context.Background(), filepath.Join("testdata", "newsyntax.stan"), t.TempDir(), os.Stderr)
	if err == nil {
		t.Fatal("Stan 2.21 translated `array[N] real y`")
	}
	for _, want := range []string{"cannot translate", "line 3 uses newer syntax", "array[", "real y[N];", "2.21"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
	if errors.Is(err, ErrNoToolchain) {
		t.Error("a parse error reported as a missing toolchain")
	}
}
