package tempering

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fresgld/fresgld/experiments/multimodal"
	"github.com/fresgld/fresgld/finitemix"
	"github.com/fresgld/fresgld/internal/procgroup"
	"github.com/fresgld/fresgld/models"
	"github.com/fresgld/fresgld/results"
)

//go:embed nuts.R
var nutsR []byte

// nuts runs nuts.R on w: seeds runs of 4 chains, each about target CPU
// seconds, warmup included, compilation excluded. Each run's estimate
// is scored as the others' are, over all its draws (its AtTarget).
func nuts(ctx context.Context, w *Workload, seeds int, target float64, work string) ([]*Run, error) {
	if !multimodal.HaveR() {
		return nil, multimodal.ErrNoR
	}
	dir := filepath.Join(work, w.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "nuts.R"), nutsR, 0o644); err != nil {
		return nil, err
	}
	sd := w.stan
	var b strings.Builder
	for i := range sd.n {
		for _, v := range sd.x[i*sd.p : (i+1)*sd.p] {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(sd.y[i], 'g', -1, 64))
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "design.csv"), []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	var mix finitemix.FiniteMixture // the mixture's prior; zero for the regressions
	if sd.mix != nil {
		mix = *sd.mix
	}
	var harm models.Harmonic // the sinusoid's prior; zero for the others
	if sd.harmonic != nil {
		harm = *sd.harmonic
	}
	st := fmt.Sprintf("kind,sigma,sigma0,w,s0,s1,seeds,target,K,xi,R,alpha,beta,e0,S,lo\n%s,%.17g,%.17g,%.17g,%.17g,%.17g,%d,%.17g,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
		sd.kind, sd.sigma, sd.sigma0, w.Prior.W, w.Prior.Spike, w.Prior.Slab, seeds, target, mix.K, mix.Xi, mix.R, mix.Alpha, mix.Beta, mix.E0, harm.S, harm.Lo)
	if err := os.WriteFile(filepath.Join(dir, "settings.csv"), []byte(st), 0o644); err != nil {
		return nil, err
	}
	// An interrupt kills Rscript's whole process group: rstan's compiler,
	// its child, would otherwise run on and hold the output open.
	cmd := exec.CommandContext(ctx, "Rscript", filepath.Join(dir, "nuts.R"), dir)
	procgroup.Own(cmd)
	cmd.Cancel = func() error { return procgroup.Kill(cmd) }
	cmd.WaitDelay = time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("NUTS on %s: %w", w.Name, results.ErrInterrupted)
		}
		return nil, fmt.Errorf("Rscript nuts.R: %v\n%s", err, out)
	}
	var runs []*Run
	for s := 1; s <= seeds; s++ {
		info, err := multimodal.ReadFloats(filepath.Join(dir, fmt.Sprintf("info_%d.csv", s)))
		if err != nil {
			return nil, err
		}
		draws, err := multimodal.ReadFloats(filepath.Join(dir, fmt.Sprintf("draws_%d.csv", s)))
		if err != nil {
			return nil, err
		}
		if len(info) != 1 || len(info[0]) != 6 || len(draws) == 0 {
			return nil, fmt.Errorf("NUTS on %s, seed %d: unexpected shapes (info %d rows, %d draws)", w.Name, s, len(info), len(draws))
		}
		incl := make([]float64, len(w.Names))
		v := make([]float64, len(w.Names))
		for _, d := range draws {
			if len(d) != len(draws[0]) {
				return nil, fmt.Errorf("NUTS on %s, seed %d: draws of %d and %d values", w.Name, s, len(d), len(draws[0]))
			}
			sd.values(v, d)
			for j := range v {
				incl[j] += v[j] / float64(len(draws))
			}
		}
		cpu := info[0][1] + info[0][2]
		e := w.err(incl)
		runs = append(runs, &Run{Seed: uint64(s), CPU: cpu, Setup: info[0][1], Incl: incl, Err: e, AtTarget: Point{CPU: cpu, Err: e}, InclAtTarget: incl,
			Levels: 1, SwapAccept: math.NaN(), ColdSteps: int(info[0][0]), Note: fmt.Sprintf("%d iterations a chain, R̂ ≤ %.3f, %.3g leapfrog steps, %d divergent after warmup", int(info[0][0]), info[0][3], info[0][4], int(info[0][5]))})
	}
	return runs, nil
}
