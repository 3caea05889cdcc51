// Package tempering is the study of where tempering is necessary: posteriors
// with separated modes on real data, each with a trusted reference answer,
// sampled as a user would sample them — the default plan, the plan's sampler
// forced onto one level, cyclical SGLD, reSGLD and f-reSGLD through
// analysis.Run, and Stan's NUTS through rstan — scored by the largest
// inclusion-probability error against the reference at equal CPU seconds.
package tempering

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/data"
	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/experiments/slablogit"
	"github.com/fresgld/fresgld/finitemix"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/plan"
)

// Workload is a posterior with separated modes and a reference answer.
type Workload struct {
	Name, About string
	Model       plan.Model
	// Prior is the spike-and-slab prior of the regressions (zero for the
	// mixture).
	Prior models.SlabPrior
	// Names are the chain columns scored, Ref their reference values and
	// Quantity what they estimate ("inclusion probability"); a column's
	// estimate is the mean of value(x) over the draws x.
	Names    []string
	Ref      []float64
	Quantity string
	RefNote  string
	value    func(x float64) float64
	stan     stanData
}

// stanData is what nuts.R needs to write the same posterior in Stan.
type stanData struct {
	kind   string    // "linear", or "logistic" with an intercept under N(0, sigma0²)
	x, y   []float64 // the coefficients' features (no intercept column) and the response; mixture: y the standardised data
	n, p   int
	sigma  float64 // linear: the noise sd
	sigma0 float64
	mix    *finitemix.FiniteMixture // kind "mixture": the model, whose prior Stan writes
	// harmonic is kind "harmonic"'s model (y its standardised series).
	harmonic *models.Harmonic
	// values writes into out the scored quantities of one NUTS draw (the
	// row Stan writes: the coefficients, or the mixture's μ, τ and w).
	values func(out, draw []float64)
}

// Regression is fresgld regress's model of csv's data (label the
// response, σ the least-squares residual sd) under prior, with its exact
// posterior (models.LinRegExact) as the reference.
func Regression(name string, csv []byte, label string, prior models.SlabPrior) (*Workload, error) {
	d, err := dataset.Read(bytes.NewReader(csv), name, dataset.Options{Label: label, Response: true})
	if err != nil {
		return nil, err
	}
	lr, fit, err := analysis.Regression(name, d, 0, prior)
	if err != nil {
		return nil, err
	}
	ex, err := lr.Exact()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	w := &Workload{Name: name, Model: plan.RegressModel(lr, d.Names, prior), Prior: prior, Names: d.Names, Ref: ex.Inclusion, Quantity: "inclusion probability", value: prior.Inclusion,
		RefNote: fmt.Sprintf("exact: the 2^%d inclusion patterns enumerated (models.LinRegExact)", lr.P),
		About:   fmt.Sprintf("%d × %d, standardised, σ = %.4g (the least-squares residual sd), prior w = %g, s0 = %g, s1 = %g", d.N, d.P, fit.NoiseSD, prior.W, prior.Spike, prior.Slab),
		stan:    stanData{kind: "linear", x: lr.X, y: lr.Y, n: d.N, p: d.P, sigma: fit.NoiseSD, values: inclusions(prior)}}
	return w, nil
}

// SharpSpike is the spike of the study's regressions: s0 = 0.001 on the
// standardised scale, 20 times sharper than regress's default, with the
// default's w = 1/2 and s1 = 1. At it the US crime posterior's modes lie
// 27 nats apart along the segments between them (the plan's mode search,
// docs/experiments/plan-regress.md).
var SharpSpike = models.SlabPrior{W: 0.5, Spike: 0.001, Slab: 1}

// Logistic is fresgld logistic --prior spike-slab's model of w under
// prior (the intercept θ_0 under N(0, 1)), with models.SlabExact as the
// reference.
func Logistic(name string, w *slablogit.Workload) (*Workload, error) {
	lr := w.LR
	ref, err := lr.SlabExact(models.SlabExactDraws, 1)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := lr.P - 1
	x := make([]float64, 0, lr.Len()*p)
	for i := range lr.Len() {
		x = append(x, lr.Row(i)[1:]...)
	}
	out := &Workload{Name: name, Model: analysis.LogisticModel(lr, w.Names), Prior: lr.Slab, Names: w.Names[1:], Quantity: "inclusion probability", value: lr.Slab.Inclusion,
		RefNote: "models.SlabExact: Laplace over every inclusion pattern, importance sampling of the heavy ones (" + ref.Cost() + ")",
		About:   fmt.Sprintf("%s; prior w = %g, s0 = %g, s1 = %g, the intercept N(0, 1)", w.Note, lr.Slab.W, lr.Slab.Spike, lr.Slab.Slab),
		stan:    stanData{kind: "logistic", x: x, y: lr.Y, n: lr.Len(), p: p, sigma0: lr.Sigma0, values: inclusions(lr.Slab)}}
	out.Ref = ref.Inclusion[1:]
	return out, nil
}

// inclusions are the inclusion probabilities of a NUTS draw's
// coefficients.
func inclusions(prior models.SlabPrior) func(out, draw []float64) {
	return func(out, draw []float64) {
		for j, b := range draw {
			out[j] = prior.Inclusion(b)
		}
	}
}

// builders make the study's workloads, in the tables' order; each builds
// its reference, which takes from a second to a minute.
var builders = []struct {
	name  string
	build func() (*Workload, error)
}{
	{"uscrime-s0-0.001", func() (*Workload, error) { return Regression("uscrime-s0-0.001", data.UScrime, "y", SharpSpike) }},
	{"diabetes-s0-0.001", func() (*Workload, error) {
		return Regression("diabetes-s0-0.001", data.Diabetes, "progression", SharpSpike)
	}},
	{"wdbc-logistic-s0-0.001", func() (*Workload, error) {
		sw, err := slablogit.WDBC(SharpSpike)
		if err != nil {
			return nil, err
		}
		return Logistic("wdbc-logistic-s0-0.001", sw)
	}},
	{"synthetic10k-logistic-s0-0.00024", func() (*Workload, error) { return SyntheticLogistic("synthetic10k-logistic-s0-0.00024", 10000) }},
	{"galaxies-mixture-k4", func() (*Workload, error) { return Galaxies("galaxies-mixture-k4", 4, 1) }},
	{"galaxies-mixture-k5", func() (*Workload, error) { return Galaxies("galaxies-mixture-k5", 5, 1) }},
	{"galaxies-mixture-k6", func() (*Workload, error) { return Galaxies("galaxies-mixture-k6", 6, 1) }},
	{"galaxies-sparse-k6", func() (*Workload, error) { return Galaxies("galaxies-sparse-k6", 6, 0.1) }},
	{"iris-petal-length-k4", func() (*Workload, error) { return IrisPetals("iris-petal-length-k4", 4, 1) }},
	{"jj-log-earnings-harmonic", func() (*Workload, error) { return JohnsonJohnson("jj-log-earnings-harmonic") }},
	{"lakehuron-level-harmonic", func() (*Workload, error) { return LakeHuron("lakehuron-level-harmonic") }},
}

// SyntheticLogistic is slablogit's generated workload of N rows (seed 1)
// under its prior with the spike 20 times sharper, as the regressions'
// SharpSpike against regress's default: s0 = 0.02·√(569/N)/20.
func SyntheticLogistic(name string, N int) (*Workload, error) {
	sw, err := slablogit.Synthetic(N, 1)
	if err != nil {
		return nil, err
	}
	pr := slablogit.SyntheticPrior(N)
	pr.Spike /= 20
	if sw.LR, err = models.NewSlabLogistic(sw.LR.X, sw.LR.Y, sw.LR.P, 1, pr, 0); err != nil {
		return nil, err
	}
	return Logistic(name, sw)
}

// ErrNoWorkload is the error, wrapped, for a name that is no workload's,
// which the caller prefixes with its flag.
var ErrNoWorkload = errors.New("no workload")

// Workloads are the study's workloads named (all of them if none), built
// in the tables' order; an unknown name is an error (ErrNoWorkload) that
// lists the others.
func Workloads(names ...string) ([]*Workload, error) {
	var all []string
	for _, b := range builders {
		all = append(all, b.name)
	}
	for _, n := range names {
		if !slices.Contains(all, n) {
			return nil, fmt.Errorf("%w %q (there are %s)", ErrNoWorkload, n, strings.Join(all, ", "))
		}
	}
	var ws []*Workload
	for _, b := range builders {
		if len(names) > 0 && !slices.Contains(names, b.name) {
			continue
		}
		w, err := b.build()
		if err != nil {
			return nil, err
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// Galaxies is a mixture of k normals with Dirichlet(e0) weights on the
// galaxies data, with its Gibbs reference: the study's uniform weights on
// four to six components, and the sparse finite mixture of Malsiner-Walli,
// Frühwirth-Schnatter and Grün (2016), more components than clusters with
// e0 < 1, under which the components the data do not need empty.
func Galaxies(name string, k int, e0 float64) (*Workload, error) {
	c, err := dataset.ReadColumnFrom(bytes.NewReader(data.Galaxies), "galaxies.csv", "velocity", false)
	if err != nil {
		return nil, err
	}
	return Mixture(name, c.Values, k, e0)
}

// IrisPetals is a mixture of k normals with Dirichlet(e0) weights on the
// petal lengths of data.Iris, whose setosa group lies far below the
// others: its modes differ in how many components the other two species'
// petals fill.
func IrisPetals(name string, k int, e0 float64) (*Workload, error) {
	c, err := dataset.ReadColumnFrom(bytes.NewReader(data.Iris), "iris.csv", "petal_length", false)
	if err != nil {
		return nil, err
	}
	return Mixture(name, c.Values, k, e0)
}
