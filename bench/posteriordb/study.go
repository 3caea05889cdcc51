package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fresgld/fresgld/stan"
)

// Config is the study's flags.
type Config struct {
	PDB, Filter, Out, Fresgld, Commit string
	Seeds                             int
	Timeout                           time.Duration
	SkipNUTS, SkipFresgld, Resume     bool
	// Backport rewrites Stan ≥ 2.26's array declarations into 2.21's.
	Backport bool
	Log      io.Writer // progress
}

// Study is everything the study measured, written to results.json.
type Study struct {
	Date   string `json:"date"`
	Commit string `json:"fresgld_commit"`
	Binary string `json:"fresgld_binary_sha256"`
	PDB    string `json:"posteriordb"`
	// PDBCommit is the checkout's commit, where extract.sh recorded it.
	PDBCommit string `json:"posteriordb_commit,omitempty"`
	Seeds     int    `json:"seeds"`
	Command   string `json:"command"`
	// Right: the thresholds of a run that is "right".
	Right   string    `json:"right"`
	Results []*Result `json:"results"`
	// Added says which runs were added from other studies (--add).
	Added []string `json:"added,omitempty"`
}

// Result is one posterior's: why it was not run, or its runs.
type Result struct {
	Posterior string `json:"posterior"`
	Model     string `json:"model"`
	// Params are the reference's parameters (the comparison's), Dim the
	// model's unconstrained dimension.
	Params int `json:"reference_parameters"`
	Dim    int `json:"unconstrained_dimension,omitempty"`
	// Backported: array declarations rewritten to Stan 2.21's syntax.
	Backported int `json:"backported_declarations"`
	// Status: "ok", or why the posterior was not run: "does not compile
	// with Stan 2.21: …", "reference: …", "data: …".
	Status string `json:"status"`
	Runs   []*Run `json:"runs,omitempty"`
	// Seconds: the posterior's wall time in the study, compilations
	// included.
	Seconds float64 `json:"study_wall_seconds"`
}

// Run runs the study, writing results.json and results.md into the out
// folder after every posterior.
func (c Config) Run(ctx context.Context) (*Study, error) {
	d := db{root: c.PDB}
	ps, err := d.Posteriors(c.Filter)
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("--posteriors %q matches no posterior with a reference in %s", c.Filter, c.PDB)
	}
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return nil, err
	}
	script := filepath.Join(c.Out, "nuts.R")
	if err := os.WriteFile(script, nutsR, 0o644); err != nil {
		return nil, err
	}
	binHash, err := fileHash(c.Fresgld)
	if err != nil {
		return nil, fmt.Errorf("--fresgld: %w", err)
	}
	s := &Study{Date: time.Now().UTC().Format("2006-01-02"), Commit: c.Commit, Binary: binHash, PDB: c.PDB, Seeds: c.Seeds,
		Command: strings.Join(os.Args, " "),
		Right:   fmt.Sprintf("every |mean − ref mean| ≤ %g ref sd and every sd/ref sd in [%g, %g], over the reference's parameters", MeanTol, 1-SDTol, 1+SDTol)}
	if b, err := os.ReadFile(filepath.Join(c.PDB, "COMMIT")); err == nil {
		s.PDBCommit = strings.TrimSpace(string(b))
	}
	var old map[string]*Result
	if c.Resume {
		// The same binary's study goes on: its posteriors stay, those
		// run again replaced in place.
		var same bool
		old, s.Results, same = readOld(filepath.Join(c.Out, "results.json"), binHash)
		if !same {
			s.Results = nil
		}
	}
	for _, p := range ps {
		if ctx.Err() != nil {
			return s, ctx.Err()
		}
		start := time.Now()
		fmt.Fprintf(c.Log, "%s: ", p.Name)
		r := c.posterior(ctx, d, p, script, binHash, old[p.Name])
		r.Seconds = time.Since(start).Seconds()
		fmt.Fprintf(c.Log, "%s (%.0f s)\n", r.Status, r.Seconds)
		s.put(r)
		if err := s.write(c.Out); err != nil {
			return s, err
		}
	}
	return s, nil
}

// posterior runs every seed of both methods on p.
func (c Config) posterior(ctx context.Context, d db, p Posterior, script, binHash string, old *Result) *Result {
	r := &Result{Posterior: p.Name, Model: p.Model}
	dir := filepath.Join(c.Out, p.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.Status = err.Error()
		return r
	}
	switch {
	case p.Model == "":
		r.Status = "not in the posteriordb checkout"
		return r
	case p.Reference == "":
		r.Status = "posteriordb has no reference posterior for it"
		return r
	}
	ref, err := d.Reference(p)
	if err != nil {
		r.Status = "reference: " + err.Error()
		return r
	}
	r.Params = len(ref.Names)
	code, err := d.Code(p)
	if err != nil {
		r.Status = "model: " + err.Error()
		return r
	}
	code2 := code
	if c.Backport {
		var n int
		if code2, n, err = Backport(code); err != nil {
			r.Status = "backporting the array syntax: " + err.Error()
			return r
		}
		r.Backported = n
	}
	model := filepath.Join(dir, p.Model+".stan")
	js, err := d.DataJSON(p)
	if err == nil {
		err = writeData(dir, js)
	}
	if err == nil {
		err = os.WriteFile(model, []byte(code2), 0o644)
	}
	if err != nil {
		r.Status = "data: " + err.Error()
		return r
	}
	// Both compilations at once: each takes about a minute on one core.
	var ferr, nerr error
	rds := filepath.Join(rstanCache(), p.Model+"-"+hash(code2+string(nutsR))+".rds")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f, err := os.Create(filepath.Join(dir, "compile-fresgld.log"))
		if err != nil {
			ferr = err
			return
		}
		defer f.Close()
		cctx, cancel := context.WithTimeout(ctx, c.Timeout)
		defer cancel()
		_, ferr = stan.Compile(cctx, model, "", f)
		if ferr != nil {
			fmt.Fprintln(f, ferr)
		}
	}()
	if !c.SkipNUTS {
		nerr = compileNUTS(ctx, script, model, rds, filepath.Join(dir, "compile-nuts.log"), c.Timeout)
	}
	wg.Wait()
	if ferr != nil {
		r.Status = "does not compile with Stan 2.21: " + compileWhy(ferr.Error())
		return r
	}
	r.Status = "ok"
	dataJSON, dump, arrays := filepath.Join(dir, "data.json"), filepath.Join(dir, "data.R"), filepath.Join(dir, "arrays.txt")
	for seed := 1; seed <= c.Seeds; seed++ {
		fd := filepath.Join(dir, fmt.Sprintf("fresgld-s%d", seed))
		if o := old.find("fresgld", seed); o != nil {
			r.Runs = append(r.Runs, o)
		} else if !c.SkipFresgld {
			fr, compiled := runFresgld(ctx, c.Fresgld, model, dataJSON, seed, fd, c.Timeout, ref)
			if compiled {
				// This run compiled the model (another build of the stan
				// package than the study's): its time is not sampling.
				fr, _ = runFresgld(ctx, c.Fresgld, model, dataJSON, seed, fd, c.Timeout, ref)
			}
			r.Runs = append(r.Runs, &fr)
			if r.Dim == 0 {
				r.Dim = fr.dim
			}
		}
		if c.SkipNUTS {
			continue
		}
		if o := old.find("nuts", seed); o != nil {
			r.Runs = append(r.Runs, o)
			continue
		}
		if nerr != nil {
			r.Runs = append(r.Runs, &Run{Method: "nuts", Seed: seed, Status: "failed", Error: "rstan could not compile the model: " + compileWhy(nerr.Error())})
			continue
		}
		nr := runNUTS(ctx, script, rds, dump, arrays, seed, filepath.Join(dir, fmt.Sprintf("nuts-s%d", seed)), c.Timeout, ref)
		r.Runs = append(r.Runs, &nr)
	}
	if r.Dim == 0 {
		r.Dim = unconstrainedDim(filepath.Join(dir, "fresgld-s1"))
	}
	return r
}

// writeData writes the data as JSON (fresgld's), as an R dump (rstan's,
// through the same conversion fresgld makes) and the names of its
// one-dimensional arrays (which R would read as scalars were they of
// length one).
func writeData(dir string, js []byte) error {
	dump, err := stan.JSONToDump(bytes.NewReader(js))
	if err != nil {
		return err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(js, &top); err != nil {
		return err
	}
	var arrays []string
	for k, v := range top {
		if t := bytes.TrimSpace(v); len(t) > 0 && t[0] == '[' {
			arrays = append(arrays, k)
		}
	}
	sort.Strings(arrays)
	for name, b := range map[string][]byte{"data.json": js, "data.R": dump, "arrays.txt": []byte(strings.Join(arrays, "\n") + "\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// compileWhy is the line of a compilation's error that says why.
func compileWhy(msg string) string {
	lines := strings.Split(msg, "\n")
	for _, l := range lines {
		l = strings.TrimSpace(l)
		switch {
		case l == "", strings.HasPrefix(l, "--stan "), strings.HasPrefix(l, "compiling "),
			strings.Contains(l, "MESSAGE(S) FROM PARSER"), strings.HasPrefix(l, "Error in stanc("), strings.HasPrefix(l, "$ "),
			strings.HasPrefix(l, "Rscript exited"), strings.HasPrefix(l, "code for methods"):
			continue
		}
		return firstLine(l)
	}
	return firstLine(msg)
}

// unconstrainedDim is the number of unconstrained coordinates' columns
// (theta.1.unc__, or theta_1_unc__) of a fresgld run's first chain.
func unconstrainedDim(dir string) int {
	names, _, err := readCSV(filepath.Join(dir, "chain-1.csv"))
	if err != nil {
		return 0
	}
	n := 0
	for _, s := range names {
		if strings.HasSuffix(s, "unc__") {
			n++
		}
	}
	return n
}

func (r *Result) find(method string, seed int) *Run {
	if r == nil {
		return nil
	}
	for _, x := range r.Runs {
		if x.Method == method && x.Seed == seed && x.Status == "ok" {
			return x
		}
	}
	return nil
}

// readOld reads a previous results.json for --resume: per posterior its
// NUTS runs, and its fresgld runs where the same fresgld binary made
// them; the results in their order, and whether the binary was the same.
func readOld(path, binHash string) (map[string]*Result, []*Result, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, false
	}
	var s Study
	if json.Unmarshal(b, &s) != nil {
		return nil, nil, false
	}
	m := map[string]*Result{}
	for _, r := range s.Results {
		keep := &Result{Posterior: r.Posterior}
		for _, x := range r.Runs {
			if x.Method == "nuts" || s.Binary == binHash {
				keep.Runs = append(keep.Runs, x)
			}
		}
		m[r.Posterior] = keep
	}
	return m, s.Results, s.Binary == binHash
}

// put replaces r's posterior's result, or appends it.
func (s *Study) put(r *Result) {
	for i, x := range s.Results {
		if x.Posterior == r.Posterior {
			s.Results[i] = r
			return
		}
	}
	s.Results = append(s.Results, r)
}

func (s *Study) write(out string) error {
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "results.json"), b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "results.md"), []byte(s.Markdown()), 0o644)
}

// rstanCache is where the compiled rstan models are kept between runs.
func rstanCache() string {
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "fresgld", "posteriordb-rstan")
}

func hash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

func fileHash(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}
