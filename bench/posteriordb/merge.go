package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// addRuns adds to s the runs of o that s lacks, by posterior, method and
// seed: rstan's NUTS runs do not depend on fresgld's commit, so a study
// of fresgld alone (--skip-nuts) takes its NUTS runs from another one
// (--skip-fresgld) instead of running them again. A posterior s has not
// run comes whole. It says how many runs it added.
func (s *Study) addRuns(o *Study) int {
	n := 0
	for _, or := range o.Results {
		if or.Status != "ok" {
			continue
		}
		var r *Result
		for _, x := range s.Results {
			if x.Posterior == or.Posterior {
				r = x
			}
		}
		if r == nil {
			cp := *or
			cp.Runs = nil
			r = &cp
			s.Results = append(s.Results, r)
		}
		if r.Status != "ok" {
			continue
		}
		for _, x := range or.Runs {
			if r.run(x.Method, x.Seed) == nil {
				r.Runs = append(r.Runs, x)
				n++
			}
		}
	}
	return n
}

// addFrom adds the runs of each folder's results.json to out's, which it
// writes again, recording where they came from.
func addFrom(out string, dirs []string) error {
	s, err := readStudy(out)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		o, err := readStudy(d)
		if err != nil {
			return err
		}
		n := s.addRuns(o)
		s.Added = append(s.Added, fmt.Sprintf("%d runs from %s (%s, fresgld commit %s)", n, d, o.Date, o.Commit))
	}
	return s.write(out)
}

func readStudy(dir string) (*Study, error) {
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		return nil, err
	}
	var s Study
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "results.json"), err)
	}
	return &s, nil
}
