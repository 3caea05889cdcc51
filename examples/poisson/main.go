// Command poisson is a worked example of a model that fresgld does not
// ship: Bayesian Poisson regression of the warp breaks per loom on wool
// and tension (R's warpbreaks, see README.md), written against
// energy.Terms alone and analysed whole by package analysis. It then
// checks the posterior means and sds against a long MALA run.
package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/plan"
	"github.com/fresgld/fresgld/results"
)

//go:embed warpbreaks.csv
var data []byte

// PriorSD is the prior sd σ₀ of every coefficient: weak against
// coefficients of order 1 on the log scale of counts.
const PriorSD = 10

func main() {
	out := flag.String("out", "out/poisson", "output directory")
	keep := flag.Int("keep", 5000, "draws retained per chain")
	ref := flag.Int("reference", 200_000, "draws of the MALA reference")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if _, err := run(os.Stdout, os.Stderr, *out, *keep, *ref, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "poisson:", err)
		os.Exit(1)
	}
}

// Row compares one coefficient's posterior mean and sd from the analysis
// with the MALA reference's.
type Row struct {
	Name                  string
	Mean, MCSE, SD, ESS   float64 // the analysis's (ESS: bulk)
	RefMean, RefSE, RefSD float64 // MALA's
}

// Z is the difference of the means in combined Monte Carlo standard errors.
func (r Row) Z() float64 {
	return (r.Mean - r.RefMean) / math.Hypot(r.MCSE, r.RefSE)
}

// Check is the comparison of a run with the reference: a row per
// coefficient, the bound on the sds' relative bias the run states
// (analysis.Result.SDBias) and the posterior's largest curvature.
type Check struct {
	Rows         []Row
	SDBias, Lmax float64
}

// run analyses warpbreaks into out with keep draws per chain, prints the
// table and the comparison with a MALA run of ref draws, and returns the
// comparison.
func run(stdout, stderr io.Writer, out string, keep, ref int, seed uint64) (*Check, error) {
	x, y, err := Warpbreaks(data)
	if err != nil {
		return nil, err
	}
	m, err := NewPoisson(x, y, PriorSD)
	if err != nil {
		return nil, err
	}
	o := analysis.DefaultOptions()
	o.Command, o.Out, o.Keep, o.Seed, o.Log = "poisson", out, keep, seed, stderr
	res, err := analysis.Run(context.Background(), plan.Model{Terms: m, Names: Names}, o)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "Poisson regression of warpbreaks (%d looms), %s, %d chains of %d draws:\n", m.Len(), o.Method, len(o.Chains), keep)
	if err := results.Report(stdout, stderr, res.Dir(), res.Chains, &res.Summary, nil, res.Err); err != nil {
		return nil, err
	}
	ex, err := Reference(m, ref, seed)
	if err != nil {
		return nil, fmt.Errorf("MALA reference: %w", err)
	}
	c := &Check{SDBias: res.SDBias, Lmax: ex.Lmax}
	for j, name := range Names {
		p, ok := param(res.Summary, name)
		if !ok {
			return nil, fmt.Errorf("the summary has no row %q", name)
		}
		c.Rows = append(c.Rows, Row{name, p.Mean, p.MCSEMean, p.SD, p.ESSBulk, ex.Mean[j], ex.SE[j], ex.SD[j]})
	}
	fmt.Fprintf(stdout, "\nagainst MALA (%d draws, exact but for Monte Carlo error):\n", ref)
	fmt.Fprintf(stdout, "%-10s %10s %10s %9s %9s %10s %9s\n", "", "mean", "MALA", "z", "sd", "MALA sd", "sd ratio")
	for _, r := range c.Rows {
		fmt.Fprintf(stdout, "%-10s %10.4f %10.4f %9.2f %9.4f %10.4f %9.3f\n", r.Name, r.Mean, r.RefMean, r.Z(), r.SD, r.RefSD, r.SD/r.RefSD)
	}
	return c, nil
}

func param(s results.Summary, name string) (results.ParamRow, bool) {
	for _, p := range s.Parameters {
		if p.Name == name {
			return p, true
		}
	}
	return results.ParamRow{}, false
}
