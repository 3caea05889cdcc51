package exchange

import "fmt"

// Trace is a run of retained states of one level, stored flat.
type Trace struct {
	P    int       // dimension
	Data []float64 // sample i is Data[i*P : (i+1)*P]
}

// Len is the number of samples.
func (t Trace) Len() int {
	if t.P == 0 {
		return 0
	}
	return len(t.Data) / t.P
}

// At is sample i (a view).
func (t Trace) At(i int) []float64 { return t.Data[i*t.P : (i+1)*t.P] }

// Coord copies coordinate j of every sample.
func (t Trace) Coord(j int) []float64 {
	out := make([]float64, t.Len())
	for i := range out {
		out[i] = t.Data[i*t.P+j]
	}
	return out
}

// Plan says which states of a run to keep.
type Plan struct {
	Burn  int // steps discarded first
	Keep  int // samples retained
	Thin  int // steps between retained samples (≥ 1)
	Level int // the level recorded, 0 the coldest
	// Progress, if set, is called after every step with steps done and total.
	Progress func(done, total int)
	// Observe, if set, is called after every step with the sampler, for
	// recorders of other quantities (such as which replica is where).
	Observe func(s *Sampler)
}

// Steps is the number of steps the plan takes.
func (p Plan) Steps() int { return p.Burn + p.Keep*p.Thin }

func (p Plan) validate(s *Sampler) error {
	switch {
	case p.Burn < 0:
		return fmt.Errorf("burn-in = %d: must be ≥ 0", p.Burn)
	case p.Keep < 1:
		return fmt.Errorf("samples to keep = %d: must be ≥ 1", p.Keep)
	case p.Thin < 1:
		return fmt.Errorf("thinning = %d: must be ≥ 1", p.Thin)
	case p.Level < 0 || p.Level >= s.Levels():
		return fmt.Errorf("recorded level %d: the ladder has levels 0..%d", p.Level, s.Levels()-1)
	}
	return nil
}

// Collect runs the sampler for p.Steps() steps and returns the retained
// states of p.Level. On error it returns every sample retained before it.
func Collect(s *Sampler, p Plan) (Trace, error) {
	tr := Trace{P: s.Dim()}
	if err := p.validate(s); err != nil {
		return tr, err
	}
	tr.Data = make([]float64, 0, p.Keep*s.Dim())
	total := p.Steps()
	for i := 1; i <= total; i++ {
		if err := s.Step(); err != nil {
			return tr, err
		}
		if i > p.Burn && (i-p.Burn)%p.Thin == 0 {
			tr.Data = append(tr.Data, s.State(p.Level)...)
		}
		if p.Observe != nil {
			p.Observe(s)
		}
		if p.Progress != nil {
			p.Progress(i, total)
		}
	}
	return tr, nil
}
