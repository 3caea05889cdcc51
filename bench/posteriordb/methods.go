package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fresgld/fresgld/report"
)

//go:embed nuts.R
var nutsR []byte

// Run is one method's run on one posterior with one seed.
type Run struct {
	Method string `json:"method"` // "fresgld" or "nuts"
	Seed   int    `json:"seed"`
	// Status is "ok", "failed" or "timed out"; Error says why it is not ok.
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// CPUSeconds: user + system of the whole process and the children it
	// waited for; WallSeconds beside.
	CPUSeconds  num `json:"cpu_seconds"`
	WallSeconds num `json:"wall_seconds"`
	// Gradients are gradient evaluations of the log density: fresgld's
	// model requests, NUTS's leapfrog steps of all chains, warmup included.
	Gradients num `json:"gradients"`
	Errors
	GradientsPerESS num `json:"gradients_per_min_ess"`
	CPUPerESS       num `json:"cpu_seconds_per_min_ess"`
	// fresgld: the report's verdict and its reasons.
	Verdict        string   `json:"verdict,omitempty"`
	VerdictReasons []string `json:"verdict_reasons,omitempty"`
	Sampler        string   `json:"sampler,omitempty"`  // fresgld's sampler: line
	Warnings       []string `json:"warnings,omitempty"` // fresgld's summary.json's
	// NUTS: divergent transitions and iterations at the largest tree
	// depth after warmup, and the CPU seconds of sampling() alone.
	Divergent       int    `json:"divergent"`
	TreedepthHits   int    `json:"max_treedepth_hits"`
	SamplingSeconds num    `json:"sampling_cpu_seconds,omitempty"`
	Log             string `json:"log"`
	dim             int    // fresgld's: the model's unconstrained dimension
	Dir             string `json:"dir"`
}

// fresgld's first line: "… (10 unconstrained parameters…), … 104741
// requests to 4 model process(es)" (or "… 97081 gradients", where the
// model is loaded in process).
var (
	requestsRe = regexp.MustCompile(`(\d+) (requests to \d+ model process|gradients)`)
	dimRe      = regexp.MustCompile(`\((\d+) unconstrained parameters`)
)

// runFresgld runs `fresgld sample --stan --data --seed` with the default
// plan into dir and scores its draws against ref. compiled says whether
// the run compiled the model (so that its CPU time is not the
// sampler's); the caller then runs it again.
func runFresgld(ctx context.Context, bin, model, data string, seed int, dir string, timeout time.Duration, ref *Reference) (r Run, compiled bool) {
	r = Run{Method: "fresgld", Seed: seed, Dir: dir, Log: dir + ".log"}
	os.RemoveAll(dir)
	p := run(ctx, timeout, r.Log, bin, "sample", "--stan", model, "--data", data, "--seed", strconv.Itoa(seed), "--out", dir, "--quiet")
	r.CPUSeconds, r.WallSeconds = num(p.CPU), num(p.Wall)
	logText, _ := os.ReadFile(r.Log)
	compiled = strings.Contains(string(logText), " with Stan ") && strings.Contains(string(logText), "compiling ")
	if m := requestsRe.FindStringSubmatch(p.Stdout); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		r.Gradients = num(v)
	}
	if m := dimRe.FindStringSubmatch(p.Stdout); m != nil {
		r.dim, _ = strconv.Atoi(m[1])
	}
	for _, l := range strings.Split(p.Stdout, "\n") {
		if strings.HasPrefix(l, "sampler: ") {
			r.Sampler = strings.TrimPrefix(l, "sampler: ")
		}
	}
	// A failed run's summary still holds a verdict (failed) and its draws.
	if rep, err := report.Load(dir); err == nil {
		r.Verdict, r.VerdictReasons = rep.Verdict.Level, rep.Verdict.Reasons
	}
	if b, err := os.ReadFile(filepath.Join(dir, "summary.json")); err == nil {
		var w struct {
			Warnings []string `json:"warnings"`
			Requests *float64 `json:"model_requests"`
		}
		if json.Unmarshal(b, &w) == nil {
			r.Warnings = w.Warnings
			if w.Requests != nil {
				r.Gradients = num(*w.Requests)
			}
		}
	}
	if p.Err != nil {
		r.fail(p)
		return r, compiled
	}
	files, _ := filepath.Glob(filepath.Join(dir, "chain-*.csv"))
	r.score(files, ref)
	return r, compiled
}

// compileNUTS compiles the model for rstan into rds unless it is there.
func compileNUTS(ctx context.Context, script, model, rds, log string, timeout time.Duration) error {
	if _, err := os.Stat(rds); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(rds), 0o755); err != nil {
		return err
	}
	p := run(ctx, timeout, log, "Rscript", script, "compile", model, rds)
	if p.Err != nil {
		return p.Err
	}
	return nil
}

// runNUTS samples the compiled model with rstan's NUTS into dir.
func runNUTS(ctx context.Context, script, rds, dump, arrays string, seed int, dir string, timeout time.Duration, ref *Reference) Run {
	r := Run{Method: "nuts", Seed: seed, Dir: dir, Log: dir + ".log"}
	os.RemoveAll(dir)
	p := run(ctx, timeout, r.Log, "Rscript", script, "sample", rds, dump, arrays, strconv.Itoa(seed), dir)
	r.CPUSeconds, r.WallSeconds = num(p.CPU), num(p.Wall)
	if p.Err != nil {
		r.fail(p)
		return r
	}
	b, err := os.ReadFile(filepath.Join(dir, "info.json"))
	var info struct {
		Leapfrog  float64 `json:"leapfrog"`
		Divergent int     `json:"divergent"`
		Depth     int     `json:"max_treedepth_hits"`
		CPU       float64 `json:"sampling_cpu_seconds"`
	}
	if err == nil {
		err = json.Unmarshal(b, &info)
	}
	if err != nil {
		r.Status, r.Error = "failed", fmt.Sprintf("reading info.json: %v", err)
		return r
	}
	r.Gradients, r.Divergent, r.TreedepthHits, r.SamplingSeconds = num(info.Leapfrog), info.Divergent, info.Depth, num(info.CPU)
	files, _ := filepath.Glob(filepath.Join(dir, "chain-*.csv"))
	r.score(files, ref)
	return r
}

func (r *Run) fail(p proc) {
	r.Status = "failed"
	if p.TimedOut {
		r.Status = "timed out"
	}
	r.Error = p.Err.Error()
}

// score reads the run's chains and compares them with the reference.
func (r *Run) score(files []string, ref *Reference) {
	draws, err := readChains(sortChains(files))
	if err == nil {
		r.Errors, err = Compare(ref, draws)
	}
	if err != nil {
		r.Status, r.Error = "failed", err.Error()
		return
	}
	r.Status = "ok"
	r.GradientsPerESS = r.Gradients / r.MinESSBulk
	r.CPUPerESS = r.CPUSeconds / r.MinESSBulk
}

// sortChains orders chain-k.csv by k (chain-10 after chain-9).
func sortChains(files []string) []string {
	k := func(f string) int {
		s := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "chain-"), ".csv")
		n, _ := strconv.Atoi(s)
		return n
	}
	out := append([]string(nil), files...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && k(out[j]) < k(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
