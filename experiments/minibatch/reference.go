package minibatch

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/output"
)

// Reference is a long full-gradient MALA run's answer for a posterior
// without a closed form, with its own Monte Carlo error.
type Reference struct {
	Problem string `json:"problem"`
	Command string `json:"command"`
	Seed    uint64 `json:"seed"`
	// The run: adapted burn-in steps, then Steps steps at the fixed step
	// h (in the preconditioned coordinates), every Thin-th one kept.
	Burn, Steps, Thin int
	Step, Accept      float64
	// FullEvals is the number of full-data evaluations of U and ∇U.
	FullEvals int
	Wall      float64 `json:"wall_seconds"`
	// Mean and SD are the posterior mean and standard deviation of each
	// coordinate; MeanSE and SDSE their Monte Carlo standard errors by
	// batch means over Batches batches.
	Batches            int
	Mean, SD           []float64
	MeanSE, SDSE       []float64
	MinESS             float64 `json:"min_ess"`
	MaxMeanSEOverSD    float64 `json:"max_mean_se_over_sd"`
	MaxSDSEOverSD      float64 `json:"max_sd_se_over_sd"`
	PreconditionerNote string  `json:"preconditioner"`
}

// ComputeReference runs MALA on e from the Laplace approximation's mode,
// preconditioned by its covariance, with burn adapted steps and steps kept
// steps thinned by thin.
func ComputeReference(problem string, e energy.Energy, burn, steps, thin int, seed uint64) (Reference, error) {
	start := time.Now()
	p := e.Dim()
	m, l, err := mala.Laplace(e, make([]float64, p))
	if err != nil {
		return Reference{}, err
	}
	af := mala.NewAffine(e, m, l)
	// h = 1.65²/p^{1/3} is the optimal MALA step for an isotropic target
	// (Roberts & Rosenthal 1998) in the preconditioned coordinates; the
	// burn-in adapts it from there.
	h0 := 1.65 * 1.65 / math.Cbrt(float64(p))
	r, err := mala.Run(af, make([]float64, p), mala.Config{Step: h0, Burn: burn, Keep: steps / thin, Thin: thin, Seed: seed, Adapt: true})
	if err != nil {
		return Reference{}, err
	}
	n := len(r.Samples) / p
	th := make([]float64, p)
	cols := make([][]float64, p)
	for j := range cols {
		cols[j] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		af.Theta(th, r.Samples[i*p:(i+1)*p])
		for j := range th {
			cols[j][i] = th[j]
		}
	}
	const batches = 50
	ref := Reference{
		Problem: problem, Seed: seed, Burn: burn, Steps: steps, Thin: thin, Step: r.Step, Accept: r.Accept,
		FullEvals: r.Evals, Batches: batches, MinESS: math.Inf(1),
		Mean: make([]float64, p), SD: make([]float64, p), MeanSE: make([]float64, p), SDSE: make([]float64, p),
		PreconditionerNote: "MALA in z with θ = m + Lz, m the posterior mode and LLᵀ the inverse Hessian there (Laplace approximation)",
	}
	sq := make([]float64, n)
	for j, xs := range cols {
		mean, se := mala.BatchMeans(xs, batches)
		for i, x := range xs {
			sq[i] = (x - mean) * (x - mean)
		}
		v, vse := mala.BatchMeans(sq, batches)
		sd := math.Sqrt(v)
		ref.Mean[j], ref.MeanSE[j] = mean, se
		// Delta method: se(√v) = se(v)/(2√v).
		ref.SD[j], ref.SDSE[j] = sd, vse/(2*sd)
		ref.MinESS = math.Min(ref.MinESS, v/(se*se))
		ref.MaxMeanSEOverSD = math.Max(ref.MaxMeanSEOverSD, se/sd)
		ref.MaxSDSEOverSD = math.Max(ref.MaxSDSEOverSD, ref.SDSE[j]/sd)
	}
	ref.Wall = time.Since(start).Seconds()
	return ref, nil
}

// Save writes the reference as indented JSON.
func (r Reference) Save(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return output.WriteBytes(path, append(b, '\n'))
}

// LoadReference reads a reference written by Save and checks it is for a
// p-dimensional problem.
func LoadReference(path string, p int) (Reference, error) {
	var r Reference
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	if len(r.Mean) != p || len(r.SD) != p {
		return r, fmt.Errorf("%s: reference of dimension %d, the problem has %d", path, len(r.Mean), p)
	}
	return r, nil
}
