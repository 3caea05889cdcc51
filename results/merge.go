package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ChainFiles lists the chain CSVs named by the arguments.
func ChainFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		m, err := filepath.Glob(filepath.Join(a, "chain-*.csv"))
		if err != nil {
			return nil, err
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: no chain-*.csv files (is it a run's --out directory?)", a)
		}
		files = append(files, m...)
	}
	return files, nil
}

// ReadChains reads the chains and checks that they belong together: same
// command, settings and columns, distinct ids. They come back ordered by
// id, as a run holds them. A file killed before it held a draw is left
// out, and named in skipped: it holds nothing to pool.
func ReadChains(files []string) (chains []*Chain, skipped []string, err error) {
	for _, f := range files {
		c, err := ReadStanCSV(f)
		if errors.Is(err, ErrEmptyChain) {
			skipped = append(skipped, err.Error())
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		chains = append(chains, c)
	}
	if len(chains) == 0 {
		return nil, nil, fmt.Errorf("no chain with draws: %s", strings.Join(skipped, "; "))
	}
	chains, err = checkChains(chains)
	return chains, skipped, err
}

// checkChains orders the chains by id and checks that they belong together.
func checkChains(chains []*Chain) ([]*Chain, error) {
	slices.SortStableFunc(chains, func(a, b *Chain) int { return a.Header.ID - b.Header.ID })
	c0 := chains[0]
	// Whether the chains come from one run's settings first, their ids
	// after: two unrelated runs are both chain 1, and were told to give
	// each task its own --chain.
	for _, c := range chains[1:] {
		if !slices.Equal(c.Columns, c0.Columns) {
			return nil, fmt.Errorf("%s and %s have different columns: they come from different runs, which cannot be pooled", c0.Path, c.Path)
		}
		if err := sameSettings(c0, c); err != nil {
			return nil, fmt.Errorf("%w: they come from different runs, which cannot be pooled", err)
		}
	}
	for i, c := range chains[1:] {
		if c.Header.ID == chains[i].Header.ID {
			return nil, fmt.Errorf("%s and %s are both chain %d of runs with the same settings: the same run given twice (leave one out), or tasks of one array job that ran the same chain (give each task its own --chain)", chains[i].Path, c.Path, c.Header.ID)
		}
	}
	return chains, nil
}

// EmptyChains refuses a merge whose table would hold no draws: the chains
// it pools (those that finished, or all when none did) include one that
// stopped before its first draw, in its burn-in (an interrupted run), and
// the table is cut to the shortest chain. It names the files, so that the
// user can rerun them or leave them out.
func EmptyChains(chains []*Chain) error {
	pool := slices.DeleteFunc(slices.Clone(chains), func(c *Chain) bool { return c.Stats.Stopped != "" })
	if len(pool) == 0 {
		pool = chains
	}
	// Chains with draws are pooled and the others reported (see
	// SummarizeChains); only a merge with no draws at all is refused.
	var msgs []string
	for _, c := range pool {
		if len(c.Cols[0]) > 0 {
			return nil
		}
		msgs = append(msgs, fmt.Sprintf("%s has no draws (chain %d stopped after %d steps, in its burn-in of %d: %s)", c.Path, c.Header.ID, c.Stats.Steps, c.Header.Burn, c.Stats.Stopped))
	}
	return fmt.Errorf("%s: the table would hold 0 draws; rerun the chain(s), or leave the file(s) out of the merge", strings.Join(msgs, "; "))
}

// sameSettings compares the command's own settings, naming the first that
// differs, then the other comment lines before the header, but for the
// chain id. The settings come first because a difference there is the
// cause of the others: with --burn auto, a different --prior-sd changes
// num_warmup too, and naming num_warmup would send the user the wrong way.
//
// Two settings are named before the rest, as the user gave them: the seed,
// which decides the automatic choices (the plan's modes and sampler are
// settings too, so two seeds differed first in a long "sampler = …" line
// that did not say why), and --keep, which decides --thin auto (so two
// --keep differed as "thin = 20" against "thin = 40").
func sameSettings(a, b *Chain) error {
	if x, y := a.Header.Seed, b.Header.Seed; x != y {
		return fmt.Errorf("%s and %s come from runs with different seeds, --seed %d against %d (a seed decides a run's automatic choices too; the tasks of one run share its --seed, each with its own --chain)", a.Path, b.Path, x, y)
	}
	for i, x := range a.Header.Settings {
		if i >= len(b.Header.Settings) || b.Header.Settings[i][0] != x[0] {
			break // a different list: the comment lines below say where
		}
		if y := b.Header.Settings[i]; x[1] != y[1] && !adapted(a, x[0]) {
			return fmt.Errorf("%s and %s come from different settings: %s = %s against %s = %s", a.Path, b.Path, x[0], x[1], y[0], y[1])
		}
	}
	if x, y := a.Header.Keep, b.Header.Keep; x != y {
		return fmt.Errorf("%s and %s come from different settings: --keep %d against %d draws a chain", a.Path, b.Path, x, y)
	}
	if len(a.Comments) != len(b.Comments) {
		return fmt.Errorf("%s and %s come from different settings: %d and %d comment lines before the header", a.Path, b.Path, len(a.Comments), len(b.Comments))
	}
	for i, x := range a.Comments {
		if y := b.Comments[i]; x != y && !(strings.HasPrefix(x, "# id = ") && strings.HasPrefix(y, "# id = ")) && !sameAdapted(a, x, y) {
			return fmt.Errorf("%s and %s come from different settings: %q against %q", a.Path, b.Path, x, y)
		}
	}
	return nil
}

// adapted says whether setting key of chain c is set by the chain's own
// warmup: under NUTS (hmc_nuts) its step size (eta) and the sampler line
// that reports the step sizes, leapfrog steps and divergences of the
// chains warmed up beside it. The tasks of one run (--chain c) each warm
// up their own chain, as the whole run does chain by chain, so they differ
// there and agree in every other setting.
func adapted(c *Chain, key string) bool {
	return (key == "eta" || key == "sampler") && slices.Contains(c.Comments, "#     algorithm = hmc_nuts")
}

// sameAdapted says whether comment lines x and y are one setting that
// chain c's warmup sets (adapted).
func sameAdapted(c *Chain, x, y string) bool {
	kx, _, okx := strings.Cut(strings.TrimPrefix(x, "#   "), " = ")
	ky, _, oky := strings.Cut(strings.TrimPrefix(y, "#   "), " = ")
	return okx && oky && kx == ky && adapted(c, kx)
}
