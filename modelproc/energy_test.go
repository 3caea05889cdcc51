package modelproc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fresgld/fresgld/energy"
)

// The model's exact energy is U_0 + Σ_i U_i with its gradient, in one
// request: energy.Full's sums over the in-process model bit for bit, and
// the plain sum of Terms to rounding. A lost example, the prior left out
// or a term counted twice moves U by a term's size, above 0.1 here, far
// beyond the tolerance: 60 terms below 10 each, summed in another order,
// differ by at most 60·10·2⁻⁵² per value, and 1e-9·(1 + |U|) is above that.
func TestEnergyOneRequest(t *testing.T) {
	const N, p = 60, 4
	model := synth(N, p)
	full := energy.NewFull(energy.NewPerTerm(model))
	rng := rand.New(rand.NewPCG(9, 9))
	for _, mode := range []string{"serve", "text"} {
		m := start(t, mode, N, p, Options{})
		for k := range 3 {
			x := make([]float64, p)
			for j := range x {
				x[j] = rng.NormFloat64()
			}
			// The plain sum of Terms.
			want := model.Prior(nil, x)
			wantG := make([]float64, p)
			model.Prior(wantG, x)
			g := make([]float64, p)
			for i := range N {
				want += model.Term(g, x, i)
				for j, v := range g {
					wantG[j] += v
				}
			}
			ref := make([]float64, p)
			uref := full.UGrad(ref, x)

			before := m.Requests()
			got := make([]float64, p)
			u := m.UGrad(got, x)
			if d := m.Requests() - before; d != 1 {
				t.Errorf("%s: UGrad took %d requests, want 1", mode, d)
			}
			if u != uref || fmt.Sprint(got) != fmt.Sprint(ref) {
				t.Errorf("%s, state %d: UGrad %v %v, energy.Full %v %v", mode, k, u, got, uref, ref)
			}
			near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*(1+math.Abs(b)) }
			if !near(u, want) {
				t.Errorf("%s, state %d: U %v, sum of terms %v", mode, k, u, want)
			}
			for j := range got {
				if !near(got[j], wantG[j]) {
					t.Errorf("%s, state %d: ∇U[%d] %v, sum of terms %v", mode, k, j, got[j], wantG[j])
				}
			}
			before = m.Requests()
			if uu := m.U(x); uu != u {
				t.Errorf("%s: U %v, UGrad's %v", mode, uu, u)
			}
			gg := make([]float64, p)
			m.Grad(gg, x)
			if fmt.Sprint(gg) != fmt.Sprint(got) {
				t.Errorf("%s: Grad %v, UGrad's %v", mode, gg, got)
			}
			// The prior came with the reply: asking for it costs nothing.
			m.Prior(gg, x)
			if d := m.Requests() - before; d != 2 {
				t.Errorf("%s: U, Grad and Prior took %d requests, want 2", mode, d)
			}
			// energy.Sum and energy.Full over the process: one request each.
			before = m.Requests()
			if s := energy.Sum(m, x); s != uref {
				t.Errorf("%s: energy.Sum %v, want %v", mode, s, uref)
			}
			energy.NewFull(m).UGrad(gg, x)
			if d := m.Requests() - before; d != 2 {
				t.Errorf("%s: energy.Sum and energy.Full took %d requests, want 2", mode, d)
			}
		}
		if err := m.Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// gated answers a prior at θ_1 = 1 only once the file gate exists.
type gated struct {
	energy.Terms
	gate string
}

func (g gated) Prior(grad, x []float64) float64 {
	for x[0] == 1 {
		if _, err := os.Stat(g.gate); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return g.Terms.Prior(grad, x)
}

// With two copies, a request is answered while the other copy is busy: the
// chains do not take turns. With one, the second request waits for the
// first (which shows that the test can fail).
func TestProcsServeAtOnce(t *testing.T) {
	const N, p = 30, 2
	for _, procs := range []int{2, 1} {
		gate := filepath.Join(t.TempDir(), "gate")
		cmd := fmt.Sprintf("MODELPROC_GATE=%s %s", gate, command("gated", N, p))
		m, err := Start(cmd, Options{Procs: procs})
		if err != nil {
			t.Fatal(err)
		}
		if m.Procs() != procs {
			t.Errorf("Procs() = %d, want %d", m.Procs(), procs)
		}
		held := make(chan float64)
		go func() { held <- m.Prior(nil, []float64{1, 0}) }()
		for m.Requests() == 0 { // the held request is on its way
			time.Sleep(time.Millisecond)
		}
		other := make(chan float64)
		go func() { other <- m.Prior(nil, []float64{0.5, 0}) }()
		var answered bool
		select {
		case <-other:
			answered = true
		case <-time.After(2 * time.Second):
		}
		if err := os.WriteFile(gate, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		<-held
		if !answered {
			<-other
		}
		if answered != (procs > 1) {
			t.Errorf("%d copies: the second request answered while the first waited: %v", procs, answered)
		}
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	}
}

// Copies whose handshakes differ are refused at Start.
func TestProcsMustAgree(t *testing.T) {
	dir := t.TempDir()
	// The first copy to run says N = 5, the next ones N = 6.
	script := fmt.Sprintf(`if mkdir %s/first 2>/dev/null; then echo fresgld-model 1 text 1 5 a; else echo fresgld-model 1 text 1 6 a; fi; cat >/dev/null`, dir)
	_, err := Start(script, Options{Procs: 2, Timeout: 2 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "differs from the first copy's") {
		t.Fatalf("copies with different N: error %v", err)
	}
}
