// Command posteriordb measures fresgld's default (`fresgld sample --stan`)
// and Stan's NUTS (rstan, Stan's defaults) against posteriordb's reference
// posteriors: for every posterior with reference draws whose model the
// installed stanc (rstan 2.21) translates and compiles, and every seed,
// each method's largest |mean − ref mean| / ref sd and its sd ratios over
// the reference's parameters, its smallest bulk ESS (package diag, R's
// posterior's definitions), its gradient evaluations and the CPU seconds
// of its whole process, each per smallest bulk ESS, fresgld's verdict and
// NUTS's divergences and largest R̂. It writes results.md (the table),
// results.json (every number) and each run's log and draws into --out.
//
//	sh bench/posteriordb/run.sh [flags]     # extracts posteriordb, builds fresgld at HEAD, runs this
//	go run ./bench/posteriordb --pdb DIR --fresgld BIN [--posteriors a,b | --posteriors REGEXP] [--seeds 2] [--out out/posteriordb] [--timeout 20m] [--skip-nuts] [--resume]
//	go run ./bench/posteriordb --render [--out out/posteriordb]   # prints the table of a finished study again
//
// DIR is a posteriordb checkout (the folder holding posterior_database).
// Models written in Stan ≥ 2.26's array syntax are rewritten into 2.21's
// (backport.go) for both samplers. The models compile once each: fresgld's
// into its cache (~/.cache/fresgld/stan), rstan's into
// ~/.cache/fresgld/posteriordb-rstan; no run's CPU time includes a
// compilation.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fresgld/fresgld/bench/internal/benchmain"
)

func main() {
	pdb := flag.String("pdb", "", "a posteriordb checkout: the folder that holds posterior_database (bench/posteriordb/extract.sh makes one)")
	posteriors := flag.String("posteriors", "", "the posteriors to run: names separated by commas, or a regular expression (default: every posterior with reference draws)")
	seeds := flag.Int("seeds", 2, "seeds 1 … S for each method")
	out := flag.String("out", "out/posteriordb", "output folder: results.md, results.json, and per posterior its model, data, runs and logs")
	bin := flag.String("fresgld", "", "the fresgld binary (default: built from this repository into the output folder)")
	commit := flag.String("commit", "", "the fresgld commit the binary was built from, recorded in the results (default: this repository's HEAD, marked -dirty if tracked files changed)")
	timeout := flag.Duration("timeout", 20*time.Minute, "longest run (a compilation, a method's run for one seed): then it is killed and recorded as timed out")
	skipNUTS := flag.Bool("skip-nuts", false, "run fresgld only")
	skipFresgld := flag.Bool("skip-fresgld", false, "run rstan's NUTS only (fresgld's runs kept by --resume stay)")
	backport := flag.Bool("backport", true, "rewrite the models' array declarations of Stan ≥ 2.26 (array[N] real y) into 2.21's (real y[N]), which Debian's rstan reads; false: such models do not compile")
	resume := flag.Bool("resume", false, "keep the finished runs of --out's results.json: NUTS's, and fresgld's where the same binary made them")
	render := flag.Bool("render", false, "run nothing: print the table of --out's results.json and write its results.md again")
	add := flag.String("add", "", "with --render: other study folders, separated by commas, whose runs (by posterior, method and seed) --out's results.json lacks are added to it first, e.g. rstan's NUTS runs from a --skip-fresgld study")
	flag.Parse()
	if *add != "" && !*render {
		fmt.Fprintln(os.Stderr, "posteriordb: --add is for --render")
		os.Exit(2)
	}
	if *render {
		if *add != "" {
			benchmain.Check("posteriordb", addFrom(*out, strings.Split(*add, ",")))
		}
		benchmain.Check("posteriordb", renderOut(*out))
		return
	}
	benchmain.Check("posteriordb", mainErr(*pdb, *posteriors, *seeds, *out, *bin, *commit, *timeout, *skipNUTS, *skipFresgld, *resume, *backport))
}

func mainErr(pdb, posteriors string, seeds int, out, bin, commit string, timeout time.Duration, skipNUTS, skipFresgld, resume, backport bool) error {
	if pdb == "" {
		return fmt.Errorf("--pdb: a posteriordb checkout is needed (sh bench/posteriordb/extract.sh DIR extracts the mirror into DIR)")
	}
	if seeds < 1 {
		return fmt.Errorf("--seeds %d: at least 1", seeds)
	}
	if !skipNUTS {
		if err := exec.Command("Rscript", "-e", "suppressPackageStartupMessages(library(rstan))").Run(); err != nil {
			return fmt.Errorf("Rscript with rstan is needed for the NUTS side (Debian: r-cran-rstan); --skip-nuts runs fresgld alone: %v", err)
		}
	}
	out, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if bin == "" {
		bin = filepath.Join(out, "fresgld")
		if b, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/fresgld/fresgld/cmd/fresgld").CombinedOutput(); err != nil {
			return fmt.Errorf("building fresgld: %v\n%s", err, b)
		}
	}
	if commit == "" {
		commit = gitCommit()
	}
	c := Config{PDB: pdb, Filter: posteriors, Out: out, Fresgld: bin, Commit: commit, Seeds: seeds, Timeout: timeout, SkipNUTS: skipNUTS, SkipFresgld: skipFresgld, Resume: resume, Backport: backport, Log: os.Stdout}
	s, err := c.Run(ctx)
	if s != nil {
		fmt.Println()
		fmt.Print(s.Markdown())
		fmt.Printf("\nwrote %s and %s\n", filepath.Join(out, "results.md"), filepath.Join(out, "results.json"))
	}
	return err
}

// renderOut prints the table of out's results.json and rewrites its
// results.md.
func renderOut(out string) error {
	s, err := readStudy(out)
	if err != nil {
		return err
	}
	md := s.Markdown()
	fmt.Print(md)
	return os.WriteFile(filepath.Join(out, "results.md"), []byte(md), 0o644)
}

// gitCommit is HEAD's short hash, with -dirty where tracked files have
// uncommitted changes (the binary was then built from them).
func gitCommit() string {
	h, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(h))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += "-dirty"
	}
	return c
}
