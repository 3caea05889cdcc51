// Package protocol holds the Python and R examples of docs/model-protocol.md;
// its test runs them as model processes against the Go model they write
// out, models.Logistic.
package protocol

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/modelproc"
	"github.com/fresgld/fresgld/models"
)

// writeCSV writes the data of a synthetic logistic regression as the
// examples read it: a header, then the features and the label, each
// number in its shortest exact decimal.
func writeCSV(t *testing.T, l *models.Logistic) string {
	var b strings.Builder
	for j := range l.P {
		fmt.Fprintf(&b, "x%d,", j+1)
	}
	b.WriteString("y\n")
	for i := range l.Len() {
		for _, v := range l.Row(i) {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + ",")
		}
		fmt.Fprintf(&b, "%v\n", l.Y[i])
	}
	path := filepath.Join(t.TempDir(), "data.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Commands are the example models, each with the program it needs.
var commands = []struct{ name, program, script string }{
	{"python", "python3", "logistic.py"},
	{"R", "Rscript", "logistic.R"},
}

// reference is models.Logistic over the columns cols (from 0) of the
// file's features as fresgld logistic reads them: standardised, after an
// intercept.
func reference(t *testing.T, path string, cols []int) *models.Logistic {
	d, err := dataset.ReadFile(path, dataset.Options{Label: "y"})
	if err != nil {
		t.Fatal(err)
	}
	p := 1 + len(cols)
	x := make([]float64, 0, d.N*p)
	for i := range d.N {
		x = append(x, 1)
		for _, j := range cols {
			x = append(x, d.X[i*d.P+j])
		}
	}
	l, err := models.NewLogistic(x, d.Y, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Each example answers what models.Logistic computes on the standardised
// features after an intercept, to rounding: per example, exp and log1p of
// another library differ from Go's by an ulp or two, the standardisation
// and the sums run in another order; over at most N = 150 terms of size
// below 10 that is below 150·10·8·2⁻⁵² ≈ 3e-12 in absolute terms, well
// inside the 1e-9·(1 + |value|) allowed, while a mistake in the model (a
// sign, a lost example, a wrong state, a feature not standardised) moves
// values by more than 1e-3. Both the default (every feature) and a list of
// features are asked.
func TestExamplesMatchGo(t *testing.T) {
	const N, p = 150, 3
	l, _, err := models.SyntheticLogistic(N, p, 1, 11)
	if err != nil {
		t.Fatal(err)
	}
	// Features far from standard, so that a model that skips the
	// standardisation answers other values.
	for k := range l.X {
		l.X[k] = 3 + 2*l.X[k]
	}
	data := writeCSV(t, l)
	for _, c := range commands {
		for _, f := range []struct {
			arg, names string
			cols       []int
		}{{"", "intercept,x1,x2,x3", []int{0, 1, 2}}, {" x3,x1", "intercept,x3,x1", []int{2, 0}}} {
			t.Run(c.name+f.arg, func(t *testing.T) {
				if _, err := exec.LookPath(c.program); err != nil {
					t.Skipf("%s is not installed: the %s example is not run", c.program, c.name)
				}
				m, err := modelproc.Start(fmt.Sprintf("%s %s %s%s", c.program, c.script, data, f.arg), modelproc.Options{Stderr: os.Stderr})
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				if got := strings.Join(m.Names(), ","); got != f.names || m.Len() != N {
					t.Fatalf("handshake: names %s, N = %d", got, m.Len())
				}
				if err := compare(energy.NewPerTerm(reference(t, data, f.cols)), m, 1e-9); err != nil {
					t.Error(err)
				}
				if err := m.Err(); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// compare asks a and b the same requests: a batch at one state and of
// differences, with and without gradients, on listed examples and on all,
// the prior and one term; it returns the first value beyond tol·(1 + |a|).
func compare(a, b energy.BatchTerms, tol float64) error {
	p, N := a.Dim(), a.Len()
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := make([]float64, p), make([]float64, p)
	for j := range x {
		x[j], y[j] = rng.NormFloat64(), rng.NormFloat64()
	}
	near := func(what string, u, v []float64) error {
		for k := range u {
			if !(math.Abs(u[k]-v[k]) <= tol*(1+math.Abs(u[k]))) {
				return fmt.Errorf("%s value %d: process %v, Go %v", what, k, v[k], u[k])
			}
		}
		return nil
	}
	idx := energy.NewIndices(N).Draw(rng, 17)
	for _, grad := range []bool{false, true} {
		for _, yy := range [][]float64{nil, y} {
			for _, ix := range [][]int32{idx, idx[:1], nil} {
				var ma, mb energy.Moments
				if grad {
					ma = energy.Moments{G: make([]float64, p), GSum: make([]float64, p), GSq: make([]float64, p)}
					mb = energy.Moments{G: make([]float64, p), GSum: make([]float64, p), GSq: make([]float64, p)}
				}
				a.Batch(&ma, x, yy, ix)
				b.Batch(&mb, x, yy, ix)
				fa := append(append(append([]float64{ma.U, ma.USum, ma.USq}, ma.G...), ma.GSum...), ma.GSq...)
				fb := append(append(append([]float64{mb.U, mb.USum, mb.USq}, mb.G...), mb.GSum...), mb.GSq...)
				if err := near(fmt.Sprintf("batch (gradient %v, difference %v, %d listed)", grad, yy != nil, len(ix)), fa, fb); err != nil {
					return err
				}
			}
		}
		var ga, gb []float64
		if grad {
			ga, gb = make([]float64, p), make([]float64, p)
		}
		ua, ub := a.Prior(ga, y), b.Prior(gb, y)
		if err := near("prior", append(ga, ua), append(gb, ub)); err != nil {
			return err
		}
		ua, ub = a.Term(ga, x, 7), b.Term(gb, x, 7)
		if err := near("term", append(ga, ua), append(gb, ub)); err != nil {
			return err
		}
	}
	return nil
}

// docs/model-protocol.md shows the examples whole, as they are here.
func TestDocShowsExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/model-protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		src, err := os.ReadFile(c.script)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), string(src)) {
			t.Errorf("docs/model-protocol.md does not show %s as it is", c.script)
		}
	}
}
