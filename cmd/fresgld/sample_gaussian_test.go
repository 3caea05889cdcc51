package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The default run on a Python model whose posterior is exactly Gaussian
// (testdata/gaussian.py: linear regression with known noise sd σ = 1 and
// prior sd s0 = 10, on an intercept and a slope whose feature is not
// centred, so that the two are correlated, ρ ≈ −0.7) finds its means
// within 3 MCSE and its sds within 3 of their standard errors
// sd/√(2·ESS) (the asymptotic sd of a sample sd from ESS independent
// Gaussian draws), both with the bulk ESS the run reports. Three standard
// errors leave a correct sampler a 0.27% chance per check; a sampler that
// carries the Euler step's bias in the sd (5% at the default step on this
// model, 3.5 standard errors at 5000 draws a chain) fails.
func TestSampleExactGaussian(t *testing.T) {
	skipShort(t, "a full default run over a Python process")
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	const N, sigma, s0 = 200, 1.0, 10.0
	rng := rand.New(rand.NewPCG(27, 1))
	x := mat.NewDense(N, 2, nil)
	y := make([]float64, N)
	var csv strings.Builder
	csv.WriteString("intercept,slope,y\n")
	for i := range N {
		xi := 1 + rng.NormFloat64()
		y[i] = 1 + 2*xi + sigma*rng.NormFloat64()
		x.Set(i, 0, 1)
		x.Set(i, 1, xi)
		fmt.Fprintf(&csv, "1,%s,%s\n", strconv.FormatFloat(xi, 'g', -1, 64), strconv.FormatFloat(y[i], 'g', -1, 64))
	}
	data := writeFile(t, "data.csv", csv.String())
	// The exact posterior: Σ = (XᵀX/σ² + I/s0²)⁻¹, μ = Σ Xᵀy/σ².
	var prec mat.SymDense
	prec.SymOuterK(1/(sigma*sigma), x.T())
	for j := range 2 {
		prec.SetSym(j, j, prec.At(j, j)+1/(s0*s0))
	}
	var cov mat.Dense
	if err := cov.Inverse(&prec); err != nil {
		t.Fatal(err)
	}
	var xty, mu mat.VecDense
	xty.MulVec(x.T(), mat.NewVecDense(N, y))
	xty.ScaleVec(1/(sigma*sigma), &xty)
	mu.MulVec(&cov, &xty)

	out := t.TempDir()
	script, _ := filepath.Abs("testdata/gaussian.py")
	mustRun(t, "sample", "--model-cmd", fmt.Sprintf("python3 '%s' '%s'", script, data), "--out", out)
	sum := readSummary(t, out)
	checked := 0
	for _, v := range sum.Parameters {
		k, ok := map[string]int{"intercept": 0, "slope": 1}[v.Name]
		if !ok {
			continue
		}
		checked++
		m, sd := mu.AtVec(k), math.Sqrt(cov.At(k, k))
		mcse := v.MCSEMean
		seSD := v.SD / math.Sqrt(2*v.ESSBulk)
		t.Logf("%s: mean %.5f (exact %.5f, MCSE %.5f), sd %.5f (exact %.5f, se %.5f), bulk ESS %.0f",
			v.Name, v.Mean, m, mcse, v.SD, sd, seSD, v.ESSBulk)
		if !(math.Abs(v.Mean-m) <= 3*mcse) {
			t.Errorf("%s: mean %v, exact %v: %.2f MCSE (%v) away", v.Name, v.Mean, m, math.Abs(v.Mean-m)/mcse, mcse)
		}
		if !(math.Abs(v.SD-sd) <= 3*seSD) {
			t.Errorf("%s: sd %v, exact %v: %.2f standard errors (%v) away", v.Name, v.SD, sd, math.Abs(v.SD-sd)/seSD, seSD)
		}
	}
	if checked != 2 {
		t.Fatalf("summary.json has %d of the 2 parameters", checked)
	}
}
