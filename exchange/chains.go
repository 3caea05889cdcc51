package exchange

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// ChainSeed is the seed of chain c in a run seeded with seed. Chain c's
// ladder draws from PCG streams keyed by ChainSeed(seed, c) alone, so its
// output is the same whether it runs by itself or beside other chains, as
// a separate process or a cluster array task.
func ChainSeed(seed uint64, c int) uint64 {
	// Two rounds of SplitMix64's finaliser: nearby (seed, c) pairs give
	// unrelated seeds, so chains do not share the streams of another seed.
	return mix64(mix64(seed) ^ uint64(c))
}

func mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// ChainResult is what one chain of a multi-chain run did.
type ChainResult struct {
	Stats Stats
	Wall  time.Duration
	Err   error // the chain's error, if it stopped early
}

// RunChains runs plan on every sampler, each on its own goroutine, at most
// workers at a time (0: GOMAXPROCS), and shows sampler i's ladder to
// sinks[i] (sinks may be nil, or hold nil entries). The samplers must share
// nothing mutable: give each chain its own estimators and variance models
// (and its own seed, ChainSeed). Then every chain's output is bit-identical
// to a run of it alone, at any GOMAXPROCS. A failing chain does not stop
// the others. plan.Progress, if set, is called with the steps done and
// planned over all chains, from one goroutine at a time.
func RunChains(smps []*Sampler, plan Plan, sinks []Sink, workers int) []ChainResult {
	return ResumeChains(smps, plan, nil, sinks, workers)
}

// ResumeChains is RunChains for chains restored from checkpoints
// (Sampler.UnmarshalBinary): chain i has taken done[i] of the plan's steps
// already (done nil: none), and takes the rest.
func ResumeChains(smps []*Sampler, plan Plan, done []int, sinks []Sink, workers int) []ChainResult {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	res := make([]ChainResult, len(smps))
	prog := plan.Progress
	if prog != nil {
		total := plan.Steps() * len(smps)
		for _, d := range done {
			total -= d
		}
		every := max(total/1000, 1)
		var done atomic.Int64
		var mu sync.Mutex
		plan.Progress = func(int, int) {
			if d := int(done.Add(1)); d%every == 0 || d == total {
				mu.Lock()
				prog(d, total)
				mu.Unlock()
			}
		}
	}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, s := range smps {
		var sink Sink
		if i < len(sinks) {
			sink = sinks[i]
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			start := time.Now()
			p := plan
			if i < len(done) {
				p.Done = done[i]
			}
			err := Run(s, p, sink)
			res[i] = ChainResult{Stats: s.Stats(), Wall: time.Since(start), Err: err}
		}()
	}
	wg.Wait()
	return res
}

// paddedPCG is a PCG generator alone on its cache lines. A generator's
// state is written at every draw; two chains' 16-byte generators allocated
// side by side would share a cache line, and chains stepping on two cores
// would then slow each other down (false sharing: four chains on two cores
// took 0.67 of the sequential wall time with packed generators, 0.55 with
// padded allocations; BENCHMARKS.md).
type paddedPCG struct {
	_ [64]byte
	rand.PCG
	_ [64]byte
}

// newStream is PCG(seed, stream), as rand.NewPCG, on cache lines of its
// own, and the generator itself, which a checkpoint saves (*rand.PCG is an
// encoding.BinaryMarshaler; a rand.Rand wrapping it keeps no state of its
// own).
func newStream(seed, stream uint64) (*rand.Rand, *rand.PCG) {
	p := &paddedPCG{}
	p.Seed(seed, stream)
	return rand.New(&p.PCG), &p.PCG
}
