package main

import (
	"fmt"

	"github.com/spf13/pflag"
)

// chainFlags are the multi-chain settings of a sampling command.
type chainFlags struct {
	Chains int `json:"chains"`
	Chain  int `json:"chain,omitempty"` // run only this chain
	// Every is --checkpoint-every. It changes no output, so it is not a
	// setting: runs with other periods give the same files.
	Every float64 `json:"-"`
	// Overwrite lets the run replace a run of fresgld's in --out
	// (guardOut). It changes no output either.
	Overwrite bool `json:"-"`
}

func addChainFlags(fl *pflag.FlagSet, c *chainFlags) {
	fl.IntVar(&c.Chains, "chains", 4, "independent chains, run in parallel")
	fl.IntVar(&c.Chain, "chain", 0, "run only chain c (from 1), e.g. an array job's task; pool with fresgld merge")
	addCheckpointFlag(fl, &c.Every)
	fl.BoolVar(&c.Overwrite, "overwrite", false, "replace a fresgld run already in --out (without it this run is refused)")
}

// maxChains bounds --chains: each chain holds its ladder and draws in
// memory and its CSV open while it runs, all at once, so that 10⁵ chains
// ran out of file descriptors and 10¹² out of memory (a crash no error
// handler sees). R̂ and ESS need four; a cluster runs more as separate
// tasks (--chain c) pooled by merge.
const maxChains = 256

// ids are the chains to run, numbered from 1.
func (c chainFlags) ids() ([]int, error) {
	switch {
	case c.Chain < 0:
		return nil, fmt.Errorf("--chain = %d: chains are numbered from 1", c.Chain)
	case c.Chain > 0:
		return []int{c.Chain}, nil
	case c.Chains < 1:
		return nil, fmt.Errorf("--chains = %d: must be ≥ 1", c.Chains)
	case c.Chains > maxChains:
		return nil, fmt.Errorf("--chains = %d: at most %d run in one process (each holds its draws in memory and its file open); run more as separate tasks with --chain c and pool them with fresgld merge", c.Chains, maxChains)
	}
	if err := checkEvery(c.Every); err != nil {
		return nil, err
	}
	ids := make([]int, c.Chains)
	for i := range ids {
		ids[i] = i + 1
	}
	return ids, nil
}
