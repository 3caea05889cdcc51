package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/finitemix"
)

// nutsRun scores a NUTS draw as the default's columns do: its P(K+ = k)
// is ClustersAt of the draw's θ (the data's units mapped back to the
// standardised scale), its component means, sds and weights are the
// draw's own; and cpuSeconds adds GNU time's user and system seconds.
// Without the map back, P(K+ = k) reads a different θ and fails.
func TestNUTSRunScoresAsTheDefault(t *testing.T) {
	y := []float64{-1.1, -0.7, -0.2, 0.3, 0.9, 1.2, 5, 5.5}
	m, err := finitemix.NewFiniteMixture(y, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// Two chains, two draws each: (mu, sigma, w) in the data's units.
	draws := [][]float64{{0, 5.2, 1, 0.3, 0.75, 0.25}, {0.1, 5.1, 0.9, 0.4, 0.7, 0.3}, {-0.1, 5.3, 1.1, 0.2, 0.8, 0.2}, {2, 3, 2, 2, 0.5, 0.5}}
	var b strings.Builder
	b.WriteString("chain,divergent,mu_1,mu_2,sigma_1,sigma_2,w_1,w_2\n")
	for i, d := range draws {
		b.WriteString([]string{"1", "1", "2", "2"}[i] + ",0")
		for _, v := range d {
			b.WriteString("," + strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteString("\n")
	}
	path := filepath.Join(dir, "x-1.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	est, _, _, err := nutsRun(m, path)
	if err != nil {
		t.Fatal(err)
	}
	var want [2]float64
	out := make([]float64, 2)
	theta := make([]float64, m.Dim())
	p := m.NewParams()
	for _, d := range draws {
		for j := range 2 {
			p.Mu[j], p.Sigma[j], p.W[j] = (d[j]-m.Mean)/m.SD, d[2+j]/m.SD, d[4+j]
		}
		m.Pack(theta, p)
		m.ClustersAt(out, theta)
		want[0] += out[0] / 4
		want[1] += out[1] / 4
	}
	for j := range 2 {
		if math.Abs(est[j]-want[j]) > 1e-12 {
			t.Errorf("P(K+ = %d): %.15g, want %.15g", j+1, est[j], want[j])
		}
	}
	if math.Abs(est[2]-(0+0.1-0.1+2)/4) > 1e-12 || math.Abs(est[6]-(0.75+0.7+0.8+0.5)/4) > 1e-12 {
		t.Errorf("component means %v", est[2:])
	}
	tf := filepath.Join(dir, "x-1.time")
	os.WriteFile(tf, []byte("Command exited with non-zero status 1\n12.5 0.75 100.2\n"), 0o644)
	if c, err := cpuSeconds(tf); err != nil || c != 13.25 {
		t.Errorf("cpuSeconds: %v, %v", c, err)
	}
}
