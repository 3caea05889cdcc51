package multimodal

import (
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

//go:embed nuts.R
var nutsR []byte

// ErrNoR says Rscript or rstan is missing: the NUTS rows are left out.
var ErrNoR = errors.New("Rscript with rstan and posterior not found")

// HaveR reports whether Rscript can load rstan and posterior.
func HaveR() bool {
	if _, err := exec.LookPath("Rscript"); err != nil {
		return false
	}
	return exec.Command("Rscript", "-e", "suppressPackageStartupMessages({library(rstan); library(posterior)})").Run() == nil
}

// NUTSRun is one rstan run: 4 chains.
type NUTSRun struct {
	Tag                  string
	Iter                 int
	Warmup, Sample, RHat float64 // CPU seconds summed over chains; largest R-hat
	Leapfrog             float64 // leapfrog steps, warmup included
	Row                  Row
}

// NUTS runs nuts.R on the problems (one R process: the model compiles
// once, and compilation is not counted). target[i] is the CPU seconds of
// the equal-CPU run on prs[i]. It returns each problem's runs: the default
// one and, where the target exceeds its warmup, the equal-CPU one.
func NUTS(prs []*Problem, target []float64, seed uint64, work string) ([][]NUTSRun, error) {
	if !HaveR() {
		return nil, ErrNoR
	}
	script := filepath.Join(work, "nuts.R")
	if err := os.WriteFile(script, nutsR, 0o644); err != nil {
		return nil, err
	}
	args := []string{script}
	for i, pr := range prs {
		dir := filepath.Join(work, pr.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := writeDesign(filepath.Join(dir, "design.csv"), pr); err != nil {
			return nil, err
		}
		st := fmt.Sprintf("sigma,w,s0,s1,seed,target\n%.17g,%.17g,%.17g,%.17g,%d,%.17g\n", pr.LR.Sigma, Prior.W, Prior.Spike, Prior.Slab, seed, target[i])
		if err := os.WriteFile(filepath.Join(dir, "settings.csv"), []byte(st), 0o644); err != nil {
			return nil, err
		}
		args = append(args, dir)
	}
	cmd := exec.Command("Rscript", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("Rscript nuts.R: %v\n%s", err, out)
	}
	var all [][]NUTSRun
	for _, pr := range prs {
		dir := filepath.Join(work, pr.Name)
		var runs []NUTSRun
		for _, tag := range []string{"default", "equal"} {
			r, err := readNUTS(dir, tag, pr)
			if errors.Is(err, os.ErrNotExist) && tag == "equal" {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("NUTS on %s (%s): %w", pr.Name, tag, err)
			}
			runs = append(runs, r)
		}
		all = append(all, runs)
	}
	return all, nil
}

func writeDesign(path string, pr *Problem) error {
	var b strings.Builder
	for i := range pr.LR.Len() {
		for _, v := range pr.LR.Row(i) {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(pr.LR.Y[i], 'g', -1, 64))
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// ReadFloats reads a CSV of numbers without a header, R's NA as NaN.
func ReadFloats(path string) ([][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([][]float64, len(recs))
	for i, rec := range recs {
		for _, s := range rec {
			if s == "NA" { // R's MCSE of a constant column
				out[i] = append(out[i], math.NaN())
				continue
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("%s, line %d: %w", path, i+1, err)
			}
			out[i] = append(out[i], v)
		}
	}
	return out, nil
}

// readNUTS reads one run's files and scores its draws as a Row: the
// estimates pooled over the 4 chains' draws, their MCSE from R; cost, CPU
// and iterations per chain, as the SG rows give them per run.
func readNUTS(dir, tag string, pr *Problem) (NUTSRun, error) {
	info, err := ReadFloats(filepath.Join(dir, "info_"+tag+".csv"))
	if err != nil {
		return NUTSRun{}, err
	}
	draws, err := ReadFloats(filepath.Join(dir, "draws_"+tag+".csv"))
	if err != nil {
		return NUTSRun{}, err
	}
	mcse, err := ReadFloats(filepath.Join(dir, "mcse_"+tag+".csv"))
	if err != nil {
		return NUTSRun{}, err
	}
	p := pr.LR.P
	if len(info) != 1 || len(info[0]) != 5 || len(mcse) != p || len(draws) == 0 {
		return NUTSRun{}, fmt.Errorf("%s: unexpected shapes (info %d, mcse %d rows, %d draws)", dir, len(info), len(mcse), len(draws))
	}
	acc := newAccum(pr, Patterns)
	for _, d := range draws {
		if len(d) != p {
			return NUTSRun{}, fmt.Errorf("%s: a draw of %d coefficients, want %d", dir, len(d), p)
		}
		acc.add(d)
	}
	e := acc.estimate(0)
	cpu := info[0][1] + info[0][2]
	r := Row{Problem: pr.Name, Method: "NUTS (" + tag + ")", Runs: 4, InclErr: -1, MeanErr: -1, Pattern: e.Pattern,
		Cost: info[0][4] * float64(pr.LR.Len()) / 4, CPU: cpu / 4, Steps: info[0][0]}
	for j := range p {
		if v := math.Abs(e.Incl[j] - pr.Exact.Inclusion[j]); v > r.InclErr {
			r.InclErr, r.InclMCSE, r.InclVar = v, mcse[j][1], pr.Names[j]
		}
		if v := math.Abs(e.Mean[j]-pr.Exact.Mean[j]) / pr.Exact.SD[j]; v > r.MeanErr {
			r.MeanErr, r.MeanMCSE, r.MeanVar = v, mcse[j][0]/pr.Exact.SD[j], pr.Names[j]
		}
	}
	r.RunInclErr = r.InclErr
	for k, w := range r.Pattern {
		r.PatternErr = max(r.PatternErr, math.Abs(w-pr.Exact.Patterns[k].Weight))
	}
	return NUTSRun{Tag: tag, Iter: int(info[0][0]), Warmup: info[0][1], Sample: info[0][2], RHat: info[0][3], Leapfrog: info[0][4], Row: r}, nil
}
