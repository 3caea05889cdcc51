package swaps

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fresgld/fresgld/experiments/minibatch"
	"github.com/fresgld/fresgld/output"
)

// ReproduceOptions are the settings of a run of the swap-energy study.
type ReproduceOptions struct {
	Problems []string // welling-teh, welling-teh-N, breast-cancer
	Size     minibatch.Size
	Levels   int
	// AnchorScale multiplies the anchor period m = ⌈8N/n_cold⌉ (0: 1).
	AnchorScale      int
	Seeds, TuneSeeds int
	Workers          int
	Results          string // directory of the tables
	Reference        minibatch.ReferenceSource
	Progress         func(label string, total int) func(done, total int)
	Out, Log         io.Writer // the tables; what the run is doing
}

// ProblemN returns N for a problem named welling-teh-N (N ≥ 20), or false.
func ProblemN(name string) (int, bool) {
	N, err := strconv.Atoi(strings.TrimPrefix(name, "welling-teh-"))
	return N, strings.HasPrefix(name, "welling-teh-") && err == nil && N >= 20
}

// Reproduce tunes each method's swap-energy mode on tuning seeds and
// compares the methods in their chosen modes, problem by problem, writing
// each problem's Markdown and JSON (named after the problem and, above two
// levels, the ladder's size).
func Reproduce(o ReproduceOptions) error {
	for _, name := range o.Problems {
		var pr minibatch.Problem
		var err error
		note := ""
		if N, ok := ProblemN(name); ok {
			var neg float64
			pr, neg, err = WellingTehN(N, o.Size)
			note = fmt.Sprintf("Exact mass on θ2 < 0: %.4f.\n\n", neg)
		} else {
			switch name {
			case "welling-teh":
				pr, err = minibatch.WellingTehProblem(o.Size)
			case "breast-cancer":
				var ref minibatch.Reference
				if ref, err = o.Reference.Load(o.Log); err == nil {
					pr, err = minibatch.BreastCancerProblem(ref, o.Size)
				}
			default:
				return fmt.Errorf("unknown problem %q (want welling-teh, welling-teh-N or breast-cancer)", name)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		pr.Setting.AnchorScale = o.AnchorScale
		start := time.Now()
		narms := 3 * len(Modes)
		tune, err := Tune(pr, Modes, o.Levels, o.TuneSeeds, o.Workers, o.Progress(pr.Name+" tuning", narms*o.TuneSeeds))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		cmp, err := Compare(pr, tune.Best, true, o.Levels, o.Seeds, o.Workers, o.Progress(pr.Name, 5*o.Seeds))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(o.Log, "%s: %.1fs\n", pr.Name, time.Since(start).Seconds())
		var b strings.Builder
		Setting(&b, pr)
		if o.Levels > 2 {
			fmt.Fprintf(&b, "Ladder: %d levels, geometric from τ1 to τ2; swap counts, noise and the exact-S checks are pooled over its %d adjacent pairs.\n\n", o.Levels, o.Levels-1)
		}
		b.WriteString(note)
		tune.Markdown(&b, pr)
		cmp.Markdown(&b, pr)
		fmt.Fprint(o.Out, b.String())
		base := pr.Name
		if o.Levels > 2 {
			base = fmt.Sprintf("%s-%dlevels", pr.Name, o.Levels)
		}
		if o.AnchorScale > 1 {
			base = fmt.Sprintf("%s-anchors%d", base, o.AnchorScale)
		}
		if err := output.WriteBytes(filepath.Join(o.Results, base+".md"), []byte(b.String())); err != nil {
			return err
		}
		best := map[string]string{}
		for m, mode := range tune.Best {
			best[string(m)] = mode.String()
		}
		js, err := json.MarshalIndent(struct {
			Problem    string
			Setting    minibatch.Setting
			Best       map[string]string
			Tuning     []Group
			Comparison []Group
		}{pr.Name, pr.Setting, best, tune.Groups, cmp.Groups}, "", "  ")
		if err != nil {
			return err
		}
		if err := output.WriteBytes(filepath.Join(o.Results, base+".json"), append(js, '\n')); err != nil {
			return err
		}
	}
	return nil
}
