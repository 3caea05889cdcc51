package study

import "github.com/fresgld/fresgld/exchange"

// NewLadder starts the ladder cfg with every level at init (exchange.New
// copies it).
func NewLadder(cfg exchange.Config, init []float64) (*exchange.Sampler, error) {
	states := make([][]float64, len(cfg.Levels))
	for l := range states {
		states[l] = init
	}
	return exchange.New(cfg, states)
}
