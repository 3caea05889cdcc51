package main

import (
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/fresgld/fresgld/modelproc"
	"github.com/fresgld/fresgld/results"
)

// With FRESGLD_TEST_FAR_MODEL set, the test binary serves issue 51's far
// mode over the protocol: 0.5 N(0, 1) + 0.5 N(60, 0.5²) in one coordinate
// x, as its prior, beside one example of zero energy. (An init, as the
// slow model's: it runs before TestMain.)
func init() {
	if os.Getenv("FRESGLD_TEST_FAR_MODEL") == "" {
		return
	}
	if err := modelproc.Serve(farModel{}, []string{"x"}, true, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

type farModel struct{}

func (farModel) Dim() int { return 1 }
func (farModel) Len() int { return 1 }
func (farModel) Term(g, _ []float64, _ int) float64 {
	if g != nil {
		g[0] = 0
	}
	return 0
}
func (farModel) Prior(g, x []float64) float64 {
	a := -x[0]*x[0]/2 - 0.5*math.Log(2*math.Pi)
	z := (x[0] - 60) / 0.5
	b := -z*z/2 - math.Log(0.5) - 0.5*math.Log(2*math.Pi)
	m := max(a, b)
	lse := m + math.Log(0.5*math.Exp(a-m)+0.5*math.Exp(b-m))
	if g != nil {
		g[0] = 0.5*math.Exp(a-lse)*x[0] + 0.5*math.Exp(b-lse)*z/0.5
	}
	return -lse
}

// The far mode, end to end: the default run finds both modes (the search
// says so, and how far it looked, in summary.json) and its mean and sd are
// the mixture's, 30 and √(0.5·1 + 0.5·0.25 + 30²) = 30.0104, within 4 of
// their standard errors: the MCSE the run reports for the mean (from its
// bulk ESS: the error of the share of draws in each mode, 60·√(¼/ESS),
// is the whole of it), and sd/√(2·ESS) for the sd, which overstates the sd's
// error here, where the share is 0.5 and the sd moves with it only at
// second order. Before the rays the run gave −0.017 and 0.99, hundreds of
// standard errors off, and was trusted.
func TestSampleFindsFarMode(t *testing.T) {
	skipShort(t, "a full default run over a model process")
	out := t.TempDir()
	cmd := fmt.Sprintf("FRESGLD_TEST_FAR_MODEL=1 exec '%s'", os.Args[0])
	mustRun(t, "sample", "--model-cmd", cmd, "--keep", "500", "--out", out)
	var sum struct {
		results.Summary
		Plan struct {
			Modes  int `json:"modes"`
			Search struct {
				RayStarts   int     `json:"ray_starts"`
				RayReachSDs float64 `json:"ray_reach_sds"`
				Searched    string  `json:"searched"`
			} `json:"search"`
		} `json:"plan"`
	}
	readSummaryInto(t, out, &sum)
	if sum.Plan.Modes != 2 || sum.Plan.Search.RayStarts == 0 || sum.Plan.Search.RayReachSDs < 60 {
		t.Errorf("plan %+v: want 2 modes, one found from a ray read past 60 sds", sum.Plan)
	}
	for _, v := range sum.Parameters {
		if v.Name != "x" {
			continue
		}
		seSD := v.SD / math.Sqrt(2*v.ESSBulk)
		t.Logf("x: mean %.4g ± %.3g (30), sd %.4g ± %.3g (30.0104), bulk ESS %.0f", v.Mean, v.MCSEMean, v.SD, seSD, v.ESSBulk)
		if !(math.Abs(v.Mean-30) <= 4*v.MCSEMean) || !(math.Abs(v.SD-30.0104) <= 4*seSD) {
			t.Errorf("x: mean %.4g ± %.3g, sd %.4g ± %.3g; want 30 and 30.0104 within 4 standard errors", v.Mean, v.MCSEMean, v.SD, seSD)
		}
		return
	}
	t.Fatal("no x in the summary")
}
