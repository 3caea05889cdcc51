package analysis

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/modes"
	"github.com/fresgld/fresgld/plan"
)

// TestSlabLogisticPlan: a logistic model under the normal prior goes to
// the log-concave plan (a PlanModel); under the spike-and-slab, whose
// posterior is not log-concave, it must not, yet it keeps the fast paths
// the other samplers and the mode search use, and it has an inclusion
// column per coefficient but the intercept.
func TestSlabLogisticPlan(t *testing.T) {
	x := []float64{1, 0.5, -1, 1, -0.3, 0.2, 1, 1.5, 0.7, 1, -2, 0.1}
	y := []float64{1, 0, 1, 0}
	normal, err := models.NewLogistic(x, y, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := LogisticModel(normal, []string{"intercept", "a", "b"}).Terms.(plan.PlanModel); !ok {
		t.Error("the normal-prior logistic model is not a PlanModel")
	}
	slab, err := models.NewSlabLogistic(x, y, 3, 1, models.SlabPrior{W: 0.5, Spike: 0.02, Slab: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := LogisticModel(slab, []string{"intercept", "a", "b"})
	if _, ok := m.Terms.(plan.PlanModel); ok {
		t.Error("the spike-and-slab logistic model is a PlanModel: the log-concave plan would take it")
	}
	if _, ok := m.Terms.(interface {
		energy.LinearTerms
		energy.EnergyGrad
		energy.Toucher
		modes.Hessianer
	}); !ok {
		t.Error("the spike-and-slab logistic model lost a fast path")
	}
	if len(m.Generated) != 2 || m.Generated[0] != "inclusion_a" || m.Generated[1] != "inclusion_b" || !m.NoChainChecks || m.Starts == nil {
		t.Errorf("generated %q, no chain checks %v, starts set %v", m.Generated, m.NoChainChecks, m.Starts != nil)
	}
	out := make([]float64, 2)
	m.Generate(out, []float64{5, 0, 1})
	if !(out[0] < 0.05 && out[1] > 0.99) {
		t.Errorf("inclusion at θ = (5, 0, 1): %v, want near 0 and 1 (the intercept's 5 not read)", out)
	}
}

// TestThinnedSwapsExpandAtTheMode: under --swap-energies thinned the swaps
// expand the data sum about the posterior mode the defaults found (the
// thinning's cost grows as the cube of the states' distance from it), not
// about the chains' start at θ = 0.
func TestThinnedSwapsExpandAtTheMode(t *testing.T) {
	lr, _, err := models.SyntheticLogistic(2000, 3, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	m := LogisticModel(lr, []string{"a", "b", "c"})
	o := DefaultOptions()
	o.Method, o.SwapEnergies, o.Out = exchange.FReSGLDMethod, "thinned", t.TempDir()
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	curv, err := Defaults(context.Background(), m, &o, &Result{})
	if err != nil {
		t.Fatal(err)
	}
	e := o.swap.Energies
	if e.Mode != exchange.ThinnedEnergies || curv.Mode == nil || !slices.Equal(e.Expand, curv.Mode) {
		t.Fatalf("swap energies %v expanded about %v, the mode is %v", e.Mode, e.Expand, curv.Mode)
	}
	if slices.Equal(e.Expand, make([]float64, 3)) {
		t.Error("expanded about θ = 0")
	}
}

// TestAutoTakesThinnedSwapsWhereLogConcave checks auto's offer of thinned
// swaps: on a logistic regression of 20,000 examples, whose exact swaps
// would cost K·N·rate = 4,000 a step, the Laplace approximation prices a
// thinned attempt at a few examples and auto takes it, expanded at the
// mode; the same data under a spike-and-slab prior, whose posterior is not
// log-concave, are not offered it.
func TestAutoTakesThinnedSwapsWhereLogConcave(t *testing.T) {
	lr, _, err := models.SyntheticLogistic(20_000, 3, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	slab, err := models.NewSlabLogistic(lr.X, lr.Y, 3, 1, models.SlabPrior{W: 0.5, Spike: 0.01, Slab: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"a", "b", "c"}
	for _, c := range []struct {
		m    plan.Model
		want bool
	}{{LogisticModel(lr, names), true}, {LogisticModel(slab, names), false}} {
		o := DefaultOptions()
		o.Method, o.Out, o.SwapPilot = exchange.FReSGLDMethod, t.TempDir(), 50
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		curv, err := Defaults(context.Background(), c.m, &o, &Result{})
		if err != nil {
			t.Fatal(err)
		}
		e := o.swap.Energies
		t.Logf("spike-and-slab %v: %s (%s)", !c.want, o.swap.Mode, o.swap.Rule)
		if got := e.Mode == exchange.ThinnedEnergies; got != c.want {
			t.Errorf("spike-and-slab %v: swap energies %v, want thinned %v", !c.want, e.Mode, c.want)
		}
		if c.want && (!slices.Equal(e.Expand, curv.Mode) || e.ExactEvery != 10) {
			t.Errorf("thinned swaps expanded about %v every %d steps; want the mode %v, every 10", e.Expand, e.ExactEvery, curv.Mode)
		}
	}
}

// A spike-and-slab logistic regression's kernel reads a few examples a
// test where ThinnedSlabPays says so, at every power, and every example
// where the data's high-leverage rows make the thinned tests dearer: on
// 5,000 rows of normal features the kernel is a ThinnedSlabMove, with one
// Cauchy feature a SlabMove; the plan's description says which.
func TestSlabLogisticKernelByCost(t *testing.T) {
	for _, heavy := range []bool{false, true} {
		const N, p = 5000, 3
		rng := rand.New(rand.NewPCG(3, 4))
		x, y := make([]float64, N*p), make([]float64, N)
		for i := range N {
			z1, z2 := rng.NormFloat64(), rng.NormFloat64()
			if heavy {
				z1 /= math.Abs(rng.NormFloat64())
			}
			x[i*p], x[i*p+1], x[i*p+2] = 1, z1, 0.9*z1+0.4*z2
			if rng.Float64() < 1/(1+math.Exp(-0.3-0.8*z1)) {
				y[i] = 1
			}
		}
		lr, err := models.NewSlabLogistic(x, y, p, 1, models.SlabPrior{W: 0.5, Spike: 0.001, Slab: 1}, 0)
		if err != nil {
			t.Fatal(err)
		}
		m := LogisticModel(lr, []string{"intercept", "a", "b"})
		for _, lam := range []float64{1, 0.01} {
			k, _ := m.Kernel(lam)
			_, thinned := k.(*models.ThinnedSlabMove)
			_, slab := k.(*models.SlabMove)
			if thinned == heavy || slab != heavy {
				t.Errorf("Cauchy feature %v, λ %g: kernel %T", heavy, lam, k)
			}
		}
		// The plan's line names the form that runs.
		want := "its tests read a few examples"
		if heavy {
			want = "its tests read every example"
		}
		if about := m.KernelAbout(); !strings.Contains(about, want) {
			t.Errorf("Cauchy feature %v: kernel described as %q, want it to say %q", heavy, about, want)
		}
	}
}
