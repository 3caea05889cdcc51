package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/output"
)

// mergeSummary is summary.json of a merge.
type mergeSummary struct {
	Files    []string    `json:"files"`
	Settings [][2]string `json:"settings"`
	chainsSummary
}

func init() {
	var out string
	cmd := &cobra.Command{
		Use:   "merge DIR|FILE...",
		Short: "Pool the chains of separate runs and print their summary",
		Long: `merge reads the chain CSVs of runs made separately, such as the tasks of a
cluster array job each running one chain (--chain c), and prints the table a
single run of all those chains prints: the same numbers, byte for byte. Each
argument is a run's output directory (its chain-*.csv files are read) or one
chain's CSV file. The chains must come from the same command and settings and
carry distinct chain ids. With --out it also writes summary.txt, summary.json,
the chain figures and report.html (all of them in one page) there.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runMerge(cmd, args, out) },
	}
	cmd.Flags().StringVar(&out, "out", "", "directory for summary.txt, summary.json, figures and report.html (default: print only)")
	rootCmd.AddCommand(cmd)
}

// chainFiles lists the chain CSVs named by the arguments.
func chainFiles(args []string) ([]string, error) {
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

// readChains reads the chains and checks that they belong together: same
// command, settings and columns, distinct ids. They come back ordered by
// id, as a run holds them. A file killed before it held a draw is left
// out, and named in skipped: it holds nothing to pool.
func readChains(files []string) (chains []*stanChain, skipped []string, err error) {
	for _, f := range files {
		c, err := readStanCSV(f)
		if errors.Is(err, errEmptyChain) {
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
func checkChains(chains []*stanChain) ([]*stanChain, error) {
	slices.SortStableFunc(chains, func(a, b *stanChain) int { return a.Header.ID - b.Header.ID })
	c0 := chains[0]
	for i, c := range chains[1:] {
		if c.Header.ID == chains[i].Header.ID {
			return nil, fmt.Errorf("%s and %s are both chain %d: give each task its own --chain", chains[i].Path, c.Path, c.Header.ID)
		}
		if !slices.Equal(c.Columns, c0.Columns) {
			return nil, fmt.Errorf("%s and %s have different columns", c0.Path, c.Path)
		}
		if err := sameSettings(c0, c); err != nil {
			return nil, err
		}
	}
	return chains, nil
}

// emptyChains refuses a merge whose table would hold no draws: the chains
// it pools (those that finished, or all when none did) include one that
// stopped before its first draw, in its burn-in (an interrupted run), and
// the table is cut to the shortest chain. It names the files, so that the
// user can rerun them or leave them out.
func emptyChains(chains []*stanChain) error {
	pool := slices.DeleteFunc(slices.Clone(chains), func(c *stanChain) bool { return c.Stats.Stopped != "" })
	if len(pool) == 0 {
		pool = chains
	}
	// Chains with draws are pooled and the others reported (see
	// summarizeChains); only a merge with no draws at all is refused.
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
func sameSettings(a, b *stanChain) error {
	for i, x := range a.Header.Settings {
		if i >= len(b.Header.Settings) || b.Header.Settings[i][0] != x[0] {
			break // a different list: the comment lines below say where
		}
		if y := b.Header.Settings[i]; x[1] != y[1] {
			return fmt.Errorf("%s and %s come from different settings: %s = %s against %s = %s", a.Path, b.Path, x[0], x[1], y[0], y[1])
		}
	}
	if len(a.Comments) != len(b.Comments) {
		return fmt.Errorf("%s and %s come from different settings: %d and %d comment lines before the header", a.Path, b.Path, len(a.Comments), len(b.Comments))
	}
	for i, x := range a.Comments {
		if y := b.Comments[i]; x != y && !(strings.HasPrefix(x, "# id = ") && strings.HasPrefix(y, "# id = ")) {
			return fmt.Errorf("%s and %s come from different settings: %q against %q", a.Path, b.Path, x, y)
		}
	}
	return nil
}

func runMerge(cmd *cobra.Command, args []string, out string) error {
	files, err := chainFiles(args)
	if err != nil {
		return err
	}
	chains, skipped, err := readChains(files)
	if err != nil {
		return err
	}
	for _, s := range skipped {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning: left out:", s)
	}
	if err := emptyChains(chains); err != nil {
		return err
	}
	if out == "" {
		s, err := summarizeChains(chains)
		if err != nil {
			return err
		}
		writeTable(os.Stdout, s)
		writeWarnings(cmd.ErrOrStderr(), s)
		return stoppedError(s, len(chains))
	}
	dir, err := output.Prepare(out, summaryOutputs()...)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	sum := mergeSummary{Files: files, Settings: chains[0].Header.Settings}
	return finishChains(cmd.ErrOrStderr(), dir, chains, &sum.chainsSummary, &sum, nil, nil)
}
