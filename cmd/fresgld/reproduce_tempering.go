package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fresgld/fresgld/experiments/tempering"
	"github.com/fresgld/fresgld/interrupt"
)

// temperingFlags are the settings of the tempering study.
type temperingFlags struct {
	runsFlags
	NUTS      bool
	Workloads string
	Methods   string
}

// temperingHelp is tempering's long help, with the stretch of its
// runs (tempering.Stretch).
var temperingHelp = `tempering samples posteriors whose modes are separated (spike-and-slab
linear and logistic regressions with a sharp spike, s0 = 0.001, or
0.00024 on the logistic's 10⁴ generated rows; mixtures of four, five
and six normals on the galaxies data, and a sparse one of six,
Dirichlet(0.1) weights; a mixture of four normals on the iris petal
lengths; a line and one sinusoid of unknown period through the log of
Johnson & Johnson's quarterly earnings and through Lake Huron's annual
levels) as a user would: the default plan, the plan's sampler forced onto one
level (--levels 1), cyclical SGLD, reSGLD and f-reSGLD on two levels and
f-reSGLD on the adaptive ladder, each run of 4 chains through the same
library call the commands make, and Stan's NUTS through rstan (4
chains, cores = 1) where Rscript with rstan is installed. The default's
CPU time a run sets every other method's: each
runs ` + fmt.Sprint(tempering.Stretch) + `× as long and is scored on its draws up to the default's CPU
seconds; NUTS's iterations are scaled to it. The score is the largest
error against the reference (exact enumeration or exact samplers) in an
inclusion probability, the probability of k clusters or of a peak of
the period's posterior, with its MCSE
from the runs' spread. It prints and writes <workload>.md for each
workload under --out; --docs writes them into docs/results/tempering
instead (full size only).`

func init() {
	f := &temperingFlags{}
	cmd := studyCommand("tempering", "Where tempering is necessary: posteriors with separated modes against trusted answers; the default, one level, cyclical SGLD, reSGLD, f-reSGLD and NUTS at equal CPU time", temperingHelp, func(cmd *cobra.Command) error { return runTempering(cmd, f) })
	fl := cmd.Flags()
	f.bind(cmd, tempering.Full.Seeds, "runs (4 chains each) per method and workload", "a short run (100 draws a chain), without NUTS (for tests)")
	fl.BoolVar(&f.NUTS, "nuts", true, "run NUTS through rstan where installed (at 10⁴ rows: half an hour a run)")
	fl.StringVar(&f.Workloads, "workloads", "", "run only these workloads, a comma list (names as in the tables; default: all)")
	fl.StringVar(&f.Methods, "methods", "", "run only these: one-level, csgld, resgld, fresgld, fresgld-ladder, nuts (default: all)")
	reproduceCmd.AddCommand(cmd)
}

// command is the command line that runs the study of workload as f did,
// for its file's first line: a part of the study (--nuts=false,
// --methods) is named there, so that it is not read as the whole.
func (f *temperingFlags) command(seeds int, workload string) string {
	c := fmt.Sprintf("fresgld reproduce tempering --seeds %d", seeds)
	if !f.NUTS {
		c += " --nuts=false"
	}
	if f.Methods != "" {
		c += " --methods " + f.Methods
	}
	return c + " --workloads " + workload
}

func runTempering(cmd *cobra.Command, f *temperingFlags) error {
	if err := f.checkSeeds(); err != nil {
		return err
	}
	sz := tempering.Full
	if f.Smoke {
		sz = tempering.Smoke
	}
	sz.Seeds = f.seeds(cmd, sz.Seeds)
	sz.NUTS = sz.NUTS && f.NUTS
	if f.Workloads != "" {
		sz.Workloads = strings.Split(f.Workloads, ",")
	}
	if f.Methods != "" {
		sz.Methods = strings.Split(f.Methods, ",")
	}
	results, work, done, err := f.dirs(cmd, "tempering", "workloads") // each workload's own file
	if err != nil {
		return err
	}
	defer done()
	ctx, stop := interrupt.Context(cmd.Context())
	defer stop()
	// An interrupt stops the run under way; the workloads finished
	// before it are written all the same.
	res, err := tempering.Measure(ctx, sz, work, logLine)
	for _, r := range res {
		table := func(w io.Writer) { tempering.Write(w, []*tempering.Result{r}) }
		if err := printAndWrite(filepath.Join(results, r.Workload.Name+".md"), f.command(sz.Seeds, r.Workload.Name), table); err != nil {
			return err
		}
	}
	return err
}
