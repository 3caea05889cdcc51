package main

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// num is a float64 that JSON writes as null where it is NaN or ±Inf
// (JSON has neither) and reads back so.
type num float64

func (x num) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return []byte(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

func (x *num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*x = num(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	*x = num(f)
	return err
}

// Markdown is the study's table: a row per posterior and method, each
// cell the seeds' values in turn (seed 1 / seed 2 / …), then the
// posteriors that were not run and why.
func (s *Study) Markdown() string {
	var b strings.Builder
	pdb := s.PDB
	if s.PDBCommit != "" {
		pdb = "commit " + s.PDBCommit[:min(len(s.PDBCommit), 7)]
	}
	fmt.Fprintf(&b, "posteriordb (%s) on %s, fresgld commit %s, seeds 1–%d; each cell: seed 1 / seed 2 / …\n\n", pdb, s.Date, s.Commit, s.Seeds)
	if len(s.Added) > 0 {
		fmt.Fprintf(&b, "Added: %s.\n\n", strings.Join(s.Added, "; "))
	}
	fmt.Fprintf(&b, "right: %s. err: the largest |mean − ref mean| / ref sd; sd: the smallest and largest sd / ref sd; ESS: the smallest bulk ESS over the reference's parameters; grad: gradient evaluations (fresgld's model requests; NUTS's leapfrog steps, warmup included); CPU: user + system seconds of the whole process (fresgld's model processes, R's start and rstan's sampling; compilation apart); ×NUTS: fresgld's CPU s per ESS over NUTS's, same seed (above 1: NUTS cheaper); sampler: what fresgld's plan chose (its sampler: line); verdict: fresgld's report's.\n\n", s.Right)
	b.WriteString("| posterior | dim | method | sampler | verdict | right | err | sd | ESS | grad | grad/ESS | CPU s | CPU s/ESS | ×NUTS | div | max R̂ |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var notRun []*Result
	tally := map[string]*[3]int{"fresgld": {}, "nuts": {}} // right, ok, runs
	for _, r := range s.Results {
		if r.Status != "ok" {
			notRun = append(notRun, r)
			continue
		}
		for _, m := range []string{"fresgld", "nuts"} {
			runs := r.method(m)
			if len(runs) == 0 {
				continue
			}
			t := tally[m]
			cells := func(f func(x *Run) string) string {
				var c []string
				for _, x := range runs {
					if x.Status != "ok" {
						c = append(c, "–")
						continue
					}
					c = append(c, f(x))
				}
				return strings.Join(c, " / ")
			}
			verdict := func(x *Run) string {
				if x.Status != "ok" {
					return x.Status
				}
				if m == "nuts" {
					return "–"
				}
				return x.Verdict
			}
			var vs []string
			for _, x := range runs {
				t[2]++
				if x.Status == "ok" {
					t[1]++
					if x.Right {
						t[0]++
					}
				}
				vs = append(vs, verdict(x))
			}
			name, dim := "", ""
			if m == "fresgld" {
				name, dim = r.Posterior, strconv.Itoa(r.Dim)
				if r.Backported > 0 {
					name += "†"
				}
			}
			ratio := "–"
			if m == "fresgld" {
				ratio = cells(func(x *Run) string {
					n := r.run("nuts", x.Seed)
					if n == nil || n.Status != "ok" {
						return "–"
					}
					return fmt.Sprintf("%.2g", float64(x.CPUPerESS/n.CPUPerESS))
				})
			}
			div, rhat := "–", cells(func(x *Run) string { return fmt.Sprintf("%.3f", float64(x.MaxRhat)) })
			if m == "nuts" {
				div = cells(func(x *Run) string { return strconv.Itoa(x.Divergent) })
			}
			kinds := "–"
			if m == "fresgld" {
				var k []string
				for _, x := range runs {
					k = append(k, samplerKind(x.Sampler))
				}
				kinds = strings.Join(k, " / ")
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				name, dim, m, kinds, strings.Join(vs, " / "),
				cells(func(x *Run) string { return yesNo(x.Right) }),
				cells(func(x *Run) string { return fmt.Sprintf("%.2f", float64(x.MaxMeanErr)) }),
				cells(func(x *Run) string { return fmt.Sprintf("%.2f–%.2f", float64(x.SDRatioMin), float64(x.SDRatioMax)) }),
				cells(func(x *Run) string { return fmt.Sprintf("%.0f", float64(x.MinESSBulk)) }),
				cells(func(x *Run) string { return fmt.Sprintf("%.3g", float64(x.Gradients)) }),
				cells(func(x *Run) string { return fmt.Sprintf("%.3g", float64(x.GradientsPerESS)) }),
				cells(func(x *Run) string { return fmt.Sprintf("%.1f", float64(x.CPUSeconds)) }),
				cells(func(x *Run) string { return fmt.Sprintf("%.3g", float64(x.CPUPerESS)) }),
				ratio, div, rhat)
		}
	}
	b.WriteString("\n† the model's array declarations rewritten into Stan 2.21's syntax (bench/posteriordb/backport.go) for both samplers.\n")
	for _, m := range []string{"fresgld", "nuts"} {
		if t := tally[m]; t[2] > 0 {
			fmt.Fprintf(&b, "\n%s: right in %d of %d runs (%d completed).", m, t[0], t[2], t[1])
		}
	}
	b.WriteString("\n")
	b.WriteString(s.tallies())
	var failed []string
	for _, r := range s.Results {
		for _, x := range r.Runs {
			if x.Status != "ok" {
				failed = append(failed, fmt.Sprintf("| %s | %s | %d | %s |", r.Posterior, x.Method, x.Seed, cell(x.Error)))
			}
		}
	}
	if len(failed) > 0 {
		b.WriteString("\nRuns that did not finish or could not be scored:\n\n| posterior | method | seed | why |\n|---|---|---|---|\n")
		b.WriteString(strings.Join(failed, "\n") + "\n")
	}
	if len(notRun) > 0 {
		b.WriteString("\nNot run:\n\n| posterior | why |\n|---|---|\n")
		for _, r := range notRun {
			fmt.Fprintf(&b, "| %s | %s |\n", r.Posterior, cell(r.Status))
		}
	}
	return b.String()
}

// tallies are the study's totals: fresgld's verdicts against whether it
// was right, and its CPU s per ESS against NUTS's.
func (s *Study) tallies() string {
	verdicts := map[string]int{}
	var trustedWrong, doubtfulRight []string
	var ratios []float64
	cheaper := 0
	for _, r := range s.Results {
		for _, x := range r.method("fresgld") {
			if x.Status != "ok" {
				continue
			}
			verdicts[x.Verdict]++
			tag := fmt.Sprintf("%s (seed %d)", r.Posterior, x.Seed)
			switch {
			case x.Verdict == "trusted" && !x.Right:
				trustedWrong = append(trustedWrong, tag)
			case x.Verdict != "trusted" && x.Right:
				doubtfulRight = append(doubtfulRight, tag)
			}
			if n := r.run("nuts", x.Seed); n != nil && n.Status == "ok" {
				q := float64(x.CPUPerESS / n.CPUPerESS)
				if !math.IsNaN(q) && !math.IsInf(q, 0) {
					ratios = append(ratios, q)
					if q < 1 {
						cheaper++
					}
				}
			}
		}
	}
	var b strings.Builder
	if len(verdicts) > 0 {
		fmt.Fprintf(&b, "\nfresgld's verdicts: %d trusted, %d doubtful, %d failed; trusted but not right: %s; not trusted but right: %s.\n",
			verdicts["trusted"], verdicts["doubtful"], verdicts["failed"], list(trustedWrong), list(doubtfulRight))
	}
	if len(ratios) > 0 {
		sort.Float64s(ratios)
		lg := 0.0
		for _, q := range ratios {
			lg += math.Log(q)
		}
		fmt.Fprintf(&b, "\nfresgld's CPU s per ESS over NUTS's, same posterior and seed, over %d pairs: geometric mean %.2g, median %.2g, range %.2g–%.2g; fresgld cheaper in %d.\n",
			len(ratios), math.Exp(lg/float64(len(ratios))), median(ratios), ratios[0], ratios[len(ratios)-1], cheaper)
	}
	b.WriteString(s.perPosterior())
	return b.String()
}

// perPosterior are the totals by posterior that the study's goals count:
// right and trusted on every seed, and fresgld's gradients and CPU s per
// minimum bulk ESS over NUTS's, each the geometric mean over the seeds
// where both ran.
func (s *Study) perPosterior() string {
	var posts, good int
	var grad, cpu []float64
	cheaper := 0
	for _, r := range s.Results {
		runs := r.method("fresgld")
		if r.Status != "ok" || len(runs) == 0 {
			continue
		}
		posts++
		all := true
		var lg, lc float64
		n := 0
		for _, x := range runs {
			all = all && x.Status == "ok" && x.Right && x.Verdict == "trusted"
			if y := r.run("nuts", x.Seed); x.Status == "ok" && y != nil && y.Status == "ok" {
				lg += math.Log(float64(x.GradientsPerESS / y.GradientsPerESS))
				lc += math.Log(float64(x.CPUPerESS / y.CPUPerESS))
				n++
			}
		}
		if all {
			good++
		}
		if n > 0 && !math.IsNaN(lg+lc) && !math.IsInf(lg+lc, 0) {
			grad = append(grad, math.Exp(lg/float64(n)))
			cpu = append(cpu, math.Exp(lc/float64(n)))
			if lc < 0 {
				cheaper++
			}
		}
	}
	var b strings.Builder
	if posts > 0 {
		fmt.Fprintf(&b, "\nBy posterior: right and trusted on every seed on %d of %d (%.0f%%).", good, posts, 100*float64(good)/float64(posts))
	}
	if len(grad) > 0 {
		sort.Float64s(grad)
		fmt.Fprintf(&b, " Where NUTS ran too (%d posteriors; each the geometric mean over seeds): fresgld's gradients per ESS over NUTS's, median %.2g (range %.2g–%.2g); its CPU s per ESS below NUTS's on %d (%.0f%%).",
			len(grad), median(grad), grad[0], grad[len(grad)-1], cheaper, 100*float64(cheaper)/float64(len(grad)))
	}
	if posts > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// median of sorted xs.
func median(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

func (r *Result) method(m string) []*Run {
	var out []*Run
	for _, x := range r.Runs {
		if x.Method == m {
			out = append(out, x)
		}
	}
	return out
}

func (r *Result) run(m string, seed int) *Run {
	for _, x := range r.Runs {
		if x.Method == m && x.Seed == seed {
			return x
		}
	}
	return nil
}

// samplerKind names the sampler fresgld's plan chose, from its
// sampler: line.
func samplerKind(line string) string {
	switch {
	case line == "":
		return "?"
	case strings.HasPrefix(line, "NUTS"):
		return "NUTS"
	case strings.Contains(line, "ladder"):
		return "ladder"
	case strings.Contains(line, "control variate") || strings.Contains(line, "control-variate"):
		if !strings.Contains(line, "full-data gradients") {
			return "CV"
		}
	}
	if strings.Contains(line, "MALA") {
		return "MALA"
	}
	w, _, _ := strings.Cut(line, " ")
	return w
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// cell is one line of s, fit for a table's cell.
func cell(s string) string {
	s = firstLine(s)
	return strings.ReplaceAll(s, "|", `\|`)
}
