package study_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/experiments/convex"
	"github.com/fresgld/fresgld/experiments/study"
)

// TestExecuteFreezesAtBurnIn runs the convex reproduction's non-parametric
// variant (a kernel-ridge variance model that records one state every 10
// steps, so that a burn-in of 150 ends before its 100 points) and checks that
// the run froze at its burn-in exactly (Stats().Frozen.Step). Without the
// freeze (the study drivers stepped the sampler without one, and KRR fitted
// after burn-in) the record is missing; freezing a step off moves it.
func TestExecuteFreezesAtBurnIn(t *testing.T) {
	pr := convex.Convex{Var: study.DefaultVar}.Problem(0.05)
	for _, v := range convex.ConvexVariants {
		r, err := pr.Execute(v, 3, study.Size{Burn: 150, Thin: 1, Keep: 100})
		if err != nil {
			t.Fatal(err)
		}
		if f := r.Stats.Frozen; f == nil || f.Step != 150 {
			t.Errorf("%s: frozen record %+v, want one at step 150", v.Name, f)
		}
	}
}

// TestDriversFreeze reads every program that steps a sampler itself
// (s.Step() in a loop, outside exchange.Run, which freezes) and requires it
// to end adaptation at its burn-in (FreezeAfter, or minibatch's
// FreezeBurnCost for a burn-in counted in cost). The analysis package's
// pilots adapt by design and are not read. Only bench/torch is exempt: it
// times steps and reports no law.
func TestDriversFreeze(t *testing.T) {
	exempt := map[string]bool{"bench/torch/main.go": true}
	root := "../.."
	for _, dir := range []string{"experiments", "bench", "cmd", "examples"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			src := string(b)
			if !strings.Contains(src, ".Step(); err != nil") || exempt[filepath.ToSlash(rel)] {
				return nil
			}
			if !strings.Contains(src, "FreezeAfter(") && !strings.Contains(src, "FreezeBurnCost(") {
				t.Errorf("%s steps a sampler and never freezes it (Sampler.FreezeAfter at its burn-in)", rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
