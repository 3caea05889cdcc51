package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/fresgld/fresgld/analysis"
	"github.com/fresgld/fresgld/modelproc"
	"github.com/fresgld/fresgld/stan"
)

// stanModel is a run's Stan model (sample --stan): its compiled program,
// its start and the writer of Stan's draws.
type stanModel struct {
	*stan.Model
	init []float64 // --init's, unconstrained
	w    *stan.Writer
}

// openStan compiles the model (or finds it compiled), reads its data and
// init, all before any sampling.
func openStan(ctx context.Context, f *sampleFlags, log io.Writer) (*stanModel, error) {
	m, err := stan.Open(ctx, f.Stan, f.Data, "", log)
	if err != nil {
		return nil, err
	}
	s := &stanModel{Model: m}
	if f.Init != "" {
		if s.init, err = m.Init(ctx, f.Init); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// analysisModel is the model the run samples: the sampler moves Stan's
// unconstrained parameters, written in columns named name.unc__ (ending
// in "__", as CmdStan's sampler columns, so that summaries leave them
// out); Stan's draws (constrained parameters, transformed parameters and
// generated quantities, with Stan's names) follow them.
func (s *stanModel) analysisModel(m *modelproc.Model, seed uint64) (analysis.Model, error) {
	start, note, err := stan.Start(m.UGrad, m.Dim(), s.init, seed)
	if err != nil {
		return analysis.Model{}, fmt.Errorf("--stan %s: %w", s.Bin.Source, err)
	}
	if note != "" {
		fmt.Println(note)
	}
	if s.w, err = s.NewWriter(seed); err != nil {
		return analysis.Model{}, err
	}
	names := make([]string, len(s.Unconstrained))
	for j, n := range s.Unconstrained {
		names[j] = n + ".unc__"
	}
	return analysis.Model{Terms: m, Names: names, Init: start, Generated: s.Constrained, Generate: s.w.Write}, nil
}

// notes adds what the model said during the run to its summary: how many
// states it rejected (a note: Stan's samplers meet such states too), and
// a warning where its generated quantities failed.
func (s *stanModel) notes(m *modelproc.Model, res *analysis.Result) {
	if n, msg := m.Rejected(); n > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("the model rejected %d of %d states asked (each a rejected proposal; the latest: %s)", n, m.Requests(), msg))
	}
	if s.w == nil {
		return
	}
	msg := strings.TrimSpace(s.w.Messages())
	if err := s.w.Err(); err != nil {
		msg = err.Error()
	}
	if msg == "" {
		return
	}
	w := analysis.Warning{Code: "stan_write", Message: "Stan's draws: the model failed on some draws, whose transformed parameters or generated quantities are NaN: " + lastLine(msg),
		Remedy: "check the generated quantities block (an _rng given an invalid argument throws)"}
	w.Message += "; " + w.Remedy
	res.Summary.Details = append(res.Summary.Details, w)
	res.Summary.Warnings = append(res.Summary.Warnings, w.Message)
}

func lastLine(s string) string {
	l := strings.Split(s, "\n")
	return l[len(l)-1]
}

func (s *stanModel) close() {
	if s.w != nil {
		s.w.Close()
	}
}
