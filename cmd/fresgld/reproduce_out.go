package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fresgld/fresgld/output"
)

// outFlags are the output flags every reproduce command shares. A run
// writes under --out (out/<command> by default); only --docs writes into
// docs/, and only at the full size that docs/experiments/ documents, so a
// smoke or small run can never overwrite the published results.
type outFlags struct {
	out  string
	docs bool
}

// docsFree are the flags that --docs allows to differ from their defaults:
// they do not change the results written (workers), or select what is
// written rather than its size.
var docsFree = map[string]bool{"docs": true, "workers": true, "reference-only": true, "recompute-reference": true, "reference": true, "summary": true}

// docsAtLeast are the flags --docs allows only to grow: more seeds or a
// longer reference run than the default are still full size.
var docsAtLeast = map[string]bool{"seeds": true, "reference-steps": true}

func (o *outFlags) bind(c *cobra.Command) {
	c.Flags().StringVar(&o.out, "out", filepath.Join("out", c.Name()), "directory of the tables and figures")
	c.Flags().BoolVar(&o.docs, "docs", false, "refresh docs/results and docs/figures instead (full size; from the repository root)")
}

// dirs returns the directories of the tables and of the figures: both --out,
// or with --docs, docs/results/<sub> and docs/figures. It refuses --docs
// with a smoke or reduced-size setting, or outside the repository root.
// free names further flags --docs allows: those of a command that names
// each output after them, so that changing them cannot overwrite another
// result.
func (o *outFlags) dirs(c *cobra.Command, sub string, free ...string) (results, figures string, err error) {
	if !o.docs {
		if o.out == "" {
			return "", "", errors.New("--out: empty directory name")
		}
		return o.out, o.out, nil
	}
	var bad error
	c.Flags().Visit(func(f *pflag.Flag) {
		switch {
		case bad != nil || docsFree[f.Name] || slices.Contains(free, f.Name) || f.Value.String() == f.DefValue:
		case f.Name == "out":
			bad = errors.New("--docs and --out: give one (--docs writes into docs/)")
		case docsAtLeast[f.Name]:
			v, _ := strconv.Atoi(f.Value.String())
			d, _ := strconv.Atoi(f.DefValue)
			if v < d {
				bad = fmt.Errorf("--docs with --%s %d: docs/ holds full-size results only (at least %d)", f.Name, v, d)
			}
		default:
			bad = fmt.Errorf("--docs with --%s %s: docs/ holds the full-size results only; drop --%s or write under --out", f.Name, f.Value, f.Name)
		}
	})
	if bad != nil {
		return "", "", bad
	}
	if st, err := os.Stat("docs"); err != nil || !st.IsDir() {
		return "", "", errors.New("--docs: no docs/ directory here; run from the repository root")
	}
	return filepath.Join("docs", "results", sub), filepath.Join("docs", "figures"), nil
}

// results is dirs's directory of the tables, made ready for the command's
// outputs (output.Prepare).
func (o *outFlags) results(c *cobra.Command, sub string, free ...string) (string, error) {
	results, _, err := o.dirs(c, sub, free...)
	if err != nil {
		return "", err
	}
	if _, err := output.Prepare(results); err != nil {
		return "", fmt.Errorf("--out: %w", err)
	}
	return results, nil
}

// prepareBoth readies the tables' directory for the outputs results and
// the figures' for figures (output.Prepare), before any work.
func prepareBoth(resDir string, results []string, figDir string, figures []string) error {
	if _, err := output.Prepare(resDir, results...); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if _, err := output.Prepare(figDir, figures...); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// printAndWrite prints a study's table, headed by the command line that
// made it, and writes the same bytes to path.
func printAndWrite(path, command string, table func(io.Writer)) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Command: `%s`\n\n", command)
	table(&b)
	os.Stdout.Write(b.Bytes())
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// studyCommand is `fresgld reproduce use`: a command of no arguments, run
// by run, with the long help long.
func studyCommand(use, short, long string, run func(*cobra.Command) error) *cobra.Command {
	return &cobra.Command{Use: use, Short: short, Long: long, Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return run(cmd) }}
}

// printStudy runs a study (run, its progress on stderr), writes its outputs
// (write) and prints the table write returns.
func printStudy[R any](cmd *cobra.Command, run func(io.Writer) (R, error), write func(R) (string, error)) error {
	r, err := run(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	md, err := write(r)
	if err != nil {
		return err
	}
	fmt.Fprint(cmd.OutOrStdout(), md)
	return nil
}
