// Package slablogit holds the spike-and-slab logistic regression workloads
// of issue 28 (separated modes with a trusted answer, models.SlabExact): the
// breast-cancer data restricted to ten strongly correlated features, and
// generated data of any size with those features' correlation.
package slablogit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/fresgld/fresgld/data"
	"github.com/fresgld/fresgld/dataset"
	"github.com/fresgld/fresgld/models"
)

// WDBCFeatures are the wdbc workload's features, by this rule: the ten
// "mean_" measurements of the cell nuclei, one per quantity measured (the
// "se_" and "worst_" columns repeat the same ten quantities). The rule keeps
// the strongly correlated groups that make the posterior undecided between
// inclusion patterns: radius, perimeter and area (pairwise correlation
// above 0.98), and compactness, concavity and concave points (0.83 to 0.92).
var WDBCFeatures = []string{"mean_radius", "mean_texture", "mean_perimeter", "mean_area", "mean_smoothness",
	"mean_compactness", "mean_concavity", "mean_concave_points", "mean_symmetry", "mean_fractal_dimension"}

// WDBCLabel is wdbc's label column (1 = benign).
const WDBCLabel = "benign"

// WDBCN is wdbc's number of examples.
const WDBCN = 569

// Prior is fresgld logistic --prior spike-slab's default (regress's):
// w = 1/2, s0 = 0.02, s1 = 1 on the standardised scale; the intercept's
// N(0, 1) is --prior-sd's default.
var Prior = models.SlabPrior{W: 0.5, Spike: 0.02, Slab: 1}

// Workload is a spike-and-slab logistic regression: its model (intercept
// first, then the standardised features) and how it was made.
type Workload struct {
	Name  string
	Names []string // coefficient names, the intercept first
	LR    *models.Logistic
	Truth []float64 // the true θ* of generated data (nil for real data)
	Note  string
}

// WDBC is the wdbc workload with prior pr (spike-and-slab on every
// coefficient but the intercept, which has N(0, 1)): the WDBCFeatures,
// standardised as fresgld logistic does (centred, divided by the population
// sd), and an intercept column.
func WDBC(pr models.SlabPrior) (*Workload, error) {
	x, y, err := wdbcFeatures()
	if err != nil {
		return nil, err
	}
	p := len(WDBCFeatures) + 1
	xi := make([]float64, len(y)*p)
	for i := range y {
		xi[i*p] = 1
		copy(xi[i*p+1:(i+1)*p], x[i*(p-1):(i+1)*(p-1)])
	}
	lr, err := models.NewSlabLogistic(xi, y, p, 1, pr, 0)
	if err != nil {
		return nil, err
	}
	return &Workload{Name: "wdbc", Names: append([]string{"intercept"}, WDBCFeatures...), LR: lr,
		Note: fmt.Sprintf("wdbc: %d examples, the ten mean_ features standardised, label %s", len(y), WDBCLabel)}, nil
}

// wdbcFeatures reads wdbc and returns the WDBCFeatures (standardised, N×10
// row-major) and the labels.
func wdbcFeatures() ([]float64, []float64, error) {
	d, err := dataset.Read(bytes.NewReader(data.WDBC), "wdbc.csv", dataset.Options{Label: WDBCLabel})
	if err != nil {
		return nil, nil, err
	}
	col := map[string]int{}
	for j, n := range d.Names {
		col[n] = j
	}
	q := len(WDBCFeatures)
	x := make([]float64, d.N*q)
	for k, n := range WDBCFeatures {
		j, ok := col[n]
		if !ok {
			return nil, nil, fmt.Errorf("wdbc.csv has no column %q", n)
		}
		for i := range d.N {
			x[i*q+k] = d.X[i*d.P+j]
		}
	}
	return x, d.Y, nil
}

// SyntheticBeta are the generated data's true coefficients at N = 569, per
// WDBCFeatures (the intercept is SyntheticIntercept): about the wdbc
// posterior's means under Prior, rounded, with four zeros (perimeter,
// compactness, symmetry, fractal dimension), so that radius, area and
// perimeter, nearly collinear, can each stand for the others.
var SyntheticBeta = []float64{-1.5, -1, 0, -1.5, -0.8, 0, -0.8, -1.8, 0, 0}

// SyntheticIntercept is the generated data's true intercept: wdbc's share
// of benign cases, 63%, is σ(0.5) ≈ 0.62.
const SyntheticIntercept = 0.5

// Scale is √(569/N): the generated data's effects, and the prior's sds
// (SyntheticPrior), are those at N = 569 times Scale. Then the Fisher
// information grows as N while the effects shrink as 1/√N, so every
// coefficient's z-score, and the posterior in the coordinates θ/Scale,
// stay about what they are at N = 569: as undecided between inclusion
// patterns at every N. (multimodal.Synthetic keeps the linear model's
// posterior the same by raising the noise sd instead; a logistic model has
// no noise sd.) Shrinking the effects alone, with the prior's sds fixed,
// would let the prior's Occam factor s_se/s1 decide every pattern at large
// N.
func Scale(N int) float64 { return math.Sqrt(WDBCN / float64(N)) }

// SyntheticPrior is Prior with its sds times Scale(N).
func SyntheticPrior(N int) models.SlabPrior {
	s := Scale(N)
	return models.SlabPrior{W: Prior.W, Spike: Prior.Spike * s, Slab: Prior.Slab * s}
}

// Synthetic is N generated rows: features x = Lz, z ~ N(0, I), L the
// Cholesky factor of the WDBCFeatures' correlation matrix, labels y ~
// Bernoulli(σ(θ*_0 + x·β*)) with θ*_0 = SyntheticIntercept and β* =
// SyntheticBeta·Scale(N), all from one PCG(seed, 0x5ab) stream, with
// SyntheticPrior(N) and the intercept's N(0, 1). The features are used as
// generated (mean 0, sd 1 by construction); a CSV of them (WriteCSV) read
// by fresgld logistic is standardised again, which changes them by the
// sample's deviation from 0 and 1 (of order 1/√N).
func Synthetic(N int, seed uint64) (*Workload, error) { return SyntheticQ(N, len(WDBCFeatures), seed) }

// SyntheticQ is Synthetic on the first q WDBCFeatures alone (their
// correlation and SyntheticBeta's first q values), for a reference that
// enumerates fewer patterns at large N: q = 6 keeps radius, perimeter and
// area, and has two of SyntheticBeta's zeros.
func SyntheticQ(N, q int, seed uint64) (*Workload, error) {
	if q < 1 || q > len(WDBCFeatures) {
		return nil, fmt.Errorf("synthetic: %d features: want 1 to %d", q, len(WDBCFeatures))
	}
	if N < 1 || N > models.MaxSyntheticValues/(q+1) {
		return nil, fmt.Errorf("synthetic: N = %d rows: want 1 to %d", N, models.MaxSyntheticValues/(q+1))
	}
	xa, _, err := wdbcFeatures()
	if err != nil {
		return nil, err
	}
	qa := len(WDBCFeatures)
	xw := make([]float64, WDBCN*q)
	for i := range WDBCN {
		copy(xw[i*q:(i+1)*q], xa[i*qa:i*qa+q])
	}
	r := mat.NewSymDense(q, nil)
	r.SymOuterK(1/float64(WDBCN), mat.NewDense(WDBCN, q, xw).T())
	var ch mat.Cholesky
	if !ch.Factorize(r) {
		return nil, errors.New("synthetic: the wdbc features' correlation matrix is singular")
	}
	var L mat.TriDense
	ch.LTo(&L)
	s := Scale(N)
	beta := make([]float64, q)
	for j, b := range SyntheticBeta[:q] {
		beta[j] = b * s
	}
	p := q + 1
	rng := rand.New(rand.NewPCG(seed, 0x5ab))
	x, y := models.NewFeatures(N*p), make([]float64, N)
	z := make([]float64, q)
	for i := range N {
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		row := x[i*p : (i+1)*p]
		row[0] = 1
		logit := SyntheticIntercept
		for j := range q {
			var v float64
			for k := 0; k <= j; k++ {
				v += L.At(j, k) * z[k]
			}
			row[j+1] = v
			logit += v * beta[j]
		}
		if rng.Float64() < 1/(1+math.Exp(-logit)) {
			y[i] = 1
		}
	}
	lr, err := models.NewSlabLogistic(x, y, p, 1, SyntheticPrior(N), 0)
	if err != nil {
		return nil, err
	}
	return &Workload{Name: fmt.Sprintf("synthetic-%d-q%d", N, q), Names: append([]string{"intercept"}, WDBCFeatures[:q]...), LR: lr,
		Truth: append([]float64{SyntheticIntercept}, beta...),
		Note:  fmt.Sprintf("%d rows with wdbc's first %d mean_ features' correlation, β* = SyntheticBeta·%.4g, prior sds ×%.4g (s0 = %.4g, s1 = %.4g)", N, q, s, s, SyntheticPrior(N).Spike, SyntheticPrior(N).Slab)}, nil
}

// WriteCSV writes the workload's features (without the intercept column)
// and labels as CSV with a header, the label last as "y": the file
// fresgld logistic --label y reads.
func (w *Workload) WriteCSV(out io.Writer) error {
	b := bufio.NewWriterSize(out, 1<<20)
	b.WriteString(strings.Join(w.Names[1:], ",") + ",y\n")
	p := w.LR.P
	var buf []byte
	for i := range w.LR.Len() {
		buf = buf[:0]
		for _, v := range w.LR.Row(i)[1:p] {
			buf = strconv.AppendFloat(buf, v, 'g', 8, 64)
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, int64(w.LR.Y[i]), 10)
		buf = append(buf, '\n')
		if _, err := b.Write(buf); err != nil {
			return err
		}
	}
	return b.Flush()
}
