// Package swaplaw measures whether minibatch swaps follow the exact ratio S
// on posteriors backed by data: on the breast-cancer regression (residuals
// with heavy tails: a few badly fitted examples), the Welling–Teh posterior
// and a generated logistic regression, at three hot temperatures, it counts the accepted swaps whose
// exact min(1, S) is below 0.01 and compares them with what swaps decided
// by S itself would accept at the same attempts.
//
// It uses only the swap study's runs (swaps.Run) and fields that the code
// before the swaps were made exact also had, so that the same study can be
// run on that code for a before-and-after comparison.
package swaplaw

import (
	"fmt"
	"io"
	"math"

	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/experiments/minibatch"
	"github.com/fresgld/fresgld/experiments/swaps"
	"github.com/fresgld/fresgld/mala"
	"github.com/fresgld/fresgld/models"
)

// Taus are the hot temperatures τ2 compared (τ1 = 1).
var Taus = []float64{1.5, 2.5, 4}

// Modes are the swap energies compared: pair-taylor (what --swap-energies
// auto runs when exact energies at every attempt are too dear and the
// pilot finds its screens quiet), pair and minibatch (noisier screens), and
// exact energies every W steps as the reference.
var Modes = []exchange.EnergyMode{exchange.PairTaylorEnergies, exchange.PairEnergies, exchange.MinibatchEnergies, exchange.ExactEnergies}

// Methods are the rules compared.
var Methods = []exchange.Method{exchange.FReSGLDMethod, exchange.ReSGLDMethod}

// Row is one method under one mode at one τ2, pooled over seeds.
type Row struct {
	Problem           string
	Tau2              float64
	Method            exchange.Method
	Mode              exchange.EnergyMode
	Attempts, Accepts int
	// LowAccepts counts accepted swaps with exact min(1, S) < swaps.Low;
	// Expected is what the exact rule would accept at those attempts: the
	// sum of min(1, S) over the attempts with min(1, S) < swaps.Low (from
	// every swaps.CheckEvery-th attempt, scaled up).
	LowAccepts int
	Expected   float64
	// ExactRate is the mean min(1, S) over the checked attempts.
	ExactRate float64
	// SwapShare is the swap energies' and anchors' share of all evaluations.
	SwapShare float64
}

// Bound is the largest count of low-S accepts consistent with the exact
// rule: its expectation plus 3 Poisson sds.
func (r Row) Bound() float64 { return r.Expected + 3*math.Sqrt(r.Expected) }

// Within says the count of accepted swaps at exact min(1, S) < swaps.Low
// agrees with the exact rule's expectation: it is within Bound, or its
// Poisson tail is above 0.00135, the one-sided 3-sd level. The bound
// alone is a normal approximation, which at the tiny expectations of some
// rows (0.06) fails one accepted swap by chance 6% of the time.
func (r Row) Within() bool {
	return !(float64(r.LowAccepts) > r.Bound()) || poissonTail(r.LowAccepts, r.Expected) >= 0.00135
}

// poissonTail is P(X ≥ k) for X ~ Poisson(lambda).
func poissonTail(k int, lambda float64) float64 {
	p, sum := math.Exp(-lambda), 0.0
	for j := range k {
		sum += p
		p *= lambda / float64(j+1)
	}
	return max(0, 1-sum)
}

// SyntheticN and SyntheticP size the generated logistic regression
// (models.SyntheticLogistic, the generator behind bench/gencsv's data).
const SyntheticN, SyntheticP = 2000, 10

// Problems are the study's posteriors at size sz: breast cancer, the
// Welling–Teh posterior and a generated logistic regression.
func Problems(sz minibatch.Size) ([]minibatch.Problem, error) {
	l, _, err := minibatch.BreastCancer()
	if err != nil {
		return nil, err
	}
	syn, _, err := models.SyntheticLogistic(SyntheticN, SyntheticP, minibatch.PriorSD, 1)
	if err != nil {
		return nil, err
	}
	var prs []minibatch.Problem
	for _, c := range []struct {
		name  string
		terms energy.Terms
		init  []float64
	}{
		{"breast-cancer", l, make([]float64, l.Dim())},
		{"welling-teh", models.PaperWellingTeh(), []float64{1.3, -1.6}},
		{fmt.Sprintf("synthetic-%d×%d", SyntheticN, SyntheticP), syn, make([]float64, SyntheticP)},
	} {
		st, _, _, err := minibatch.SettingFor(c.terms, c.init, sz)
		if err != nil {
			return nil, err
		}
		if st.Init, _, err = mala.Laplace(minibatch.Energy(c.terms), st.Init); err != nil {
			return nil, err
		}
		prs = append(prs, minibatch.Problem{Name: c.name, Terms: c.terms, Setting: st, Metrics: []string{"none"}, Targets: []float64{0}, NewAcc: func() minibatch.Accumulator { return none{} }})
	}
	return prs, nil
}

// none scores nothing: the study looks at the swaps only.
type none struct{}

func (none) Add([]float64)     {}
func (none) Score(d []float64) { d[0] = 0 }

// Measure runs every method under every mode at every τ2 on pr, for seeds
// 1 … seeds.
func Measure(pr minibatch.Problem, seeds int, progress func(Row)) ([]Row, error) {
	var rows []Row
	for _, tau2 := range Taus {
		p := pr
		p.Setting.Tau2 = tau2
		for _, m := range Methods {
			for _, mode := range Modes {
				row := Row{Problem: pr.Name, Tau2: tau2, Method: m, Mode: mode}
				var checked int
				var low, exact, cost, swap float64
				for seed := range uint64(seeds) {
					r, err := swaps.Run(p, m, mode, 0, seed+1)
					if err != nil {
						return nil, fmt.Errorf("%s, τ2 = %v, %s/%v: %w", pr.Name, tau2, m, mode, err)
					}
					row.Attempts += r.Attempts
					row.Accepts += r.Accepts
					row.LowAccepts += r.LowAccepts
					checked += r.Checked
					low += r.LowMass
					exact += r.ExactAcc
					cost += r.Cost
					swap += r.SwapCost + r.AnchorCost
				}
				if checked > 0 {
					row.Expected = low * float64(row.Attempts) / float64(checked)
					row.ExactRate = exact / float64(checked)
				}
				row.SwapShare = swap / cost
				if progress != nil {
					progress(row)
				}
				rows = append(rows, row)
			}
		}
	}
	return rows, nil
}

// MeasureAll is Measure on every problem of prs, in turn, saying each
// row on log as it comes and warning there of a row whose swaps do not
// follow S (above Bound).
func MeasureAll(prs []minibatch.Problem, seeds int, log io.Writer) ([]Row, error) {
	var rows []Row
	for _, pr := range prs {
		r, err := Measure(pr, seeds, func(r Row) {
			fmt.Fprintf(log, "%s τ2 = %g %s/%v: %d of %d accepted at min(1, S) < 0.01, exact rule %.2f\n", r.Problem, r.Tau2, r.Method, r.Mode, r.LowAccepts, r.Attempts, r.Expected)
			if float64(r.LowAccepts) > r.Bound() {
				fmt.Fprintf(log, "warning: %s τ2 = %g %s/%v accepted %d swaps at exact min(1, S) < 0.01, above the exact rule's %.2f + 3√ = %.2f: these swaps do not follow S\n", r.Problem, r.Tau2, r.Method, r.Mode, r.LowAccepts, r.Expected, r.Bound())
			}
		})
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// Markdown writes the rows as a table.
func Markdown(w io.Writer, rows []Row) {
	fmt.Fprintf(w, "| problem | τ2 | method | swap energies | attempts | acceptance | exact min(1, S), mean | accepted at min(1, S) < %g | exact rule's expectation | bound (+3√) | within | swap cost share |\n", swaps.Low)
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		ok := "yes"
		if !r.Within() {
			ok = "**no**"
		}
		fmt.Fprintf(w, "| %s | %g | %s | %v | %d | %.4f | %.4f | %d | %.2f | %.2f | %s | %.3f |\n",
			r.Problem, r.Tau2, r.Method, r.Mode, r.Attempts, float64(r.Accepts)/float64(max(r.Attempts, 1)), r.ExactRate, r.LowAccepts, r.Expected, r.Bound(), ok, r.SwapShare)
	}
}
