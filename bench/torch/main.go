// Command torch times single-chain SGLD on minibatch logistic regression
// (N = 10⁵, p = 100, n = 100) in fresgld and in a plain single-thread
// PyTorch loop (sgld.py beside this file) on the same data, alternating the
// two in rounds so that the ratio is taken within one run on a shared
// machine. It needs python3 with torch (Debian: python3-torch); without it
// it says so and exits.
//
//	go run ./bench/torch [-rounds 6] [-steps 5000]
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fresgld/fresgld/bench/internal/benchmain"
	"github.com/fresgld/fresgld/energy"
	"github.com/fresgld/fresgld/exchange"
	"github.com/fresgld/fresgld/internal/cputime"
	"github.com/fresgld/fresgld/langevin"
	"github.com/fresgld/fresgld/models"
)

const (
	N, p, n = 100_000, 100, 100
	eta     = 1e-7 // η·N·|x|²/4 ≈ 0.25: stable
)

type torchRun struct {
	Torch     string  `json:"torch"`
	DType     string  `json:"dtype"`
	Threads   int     `json:"threads"`
	NsPerStep float64 `json:"ns_per_step"`
	CPUPerSt  float64 `json:"cpu_ns_per_step"`
}

func main() {
	rounds := flag.Int("rounds", 6, "alternating rounds of the two loops")
	steps := flag.Int("steps", 5000, "timed steps per round and loop")
	flag.Parse()
	benchmain.Check("torch", run(*rounds, *steps))
}

// findPython returns the first interpreter that imports torch and numpy:
// the one on PATH, else Debian's, where python3-torch installs (a PATH
// python3 from pyenv or a virtual environment does not see it).
func findPython() (string, string) {
	why := ""
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		out, err := exec.Command(py, "-c", "import torch, numpy").CombinedOutput()
		if err == nil {
			return py, ""
		}
		why += fmt.Sprintf("%s: %v: %s; ", py, err, lastLine(out))
	}
	return "", why
}

func run(rounds, steps int) error {
	py, why := findPython()
	if py == "" {
		fmt.Printf("SKIPPED: no python3 imports torch and numpy (%s); install Debian's python3-torch to run the comparison\n", why)
		return nil
	}
	_, self, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(self), "sgld.py")
	l, _, err := models.SyntheticLogistic(N, p, 1, 1)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "fresgld-torch")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	data := filepath.Join(dir, "data.bin")
	if err := writeData(data, l); err != nil {
		return err
	}
	s, err := sampler(l)
	if err != nil {
		return err
	}
	fmt.Printf("SGLD on minibatch logistic regression, N = %d, p = %d, n = %d, η = %g; %d rounds of %d steps\n", N, p, n, eta, rounds, steps)
	fmt.Printf("%-6s %14s %14s %16s %16s %16s\n", "round", "go ns/step", "go cpu-ns", "torch64 cpu-ns", "torch32 cpu-ns", "torch64/go (cpu)")
	var ratios, ratios32 []float64
	for r := range rounds {
		wall, cpu, err := goLoop(s, steps)
		if err != nil {
			return err
		}
		t64, err := torchLoop(py, script, data, steps, "float64")
		if err != nil {
			return err
		}
		t32, err := torchLoop(py, script, data, steps, "float32")
		if err != nil {
			return err
		}
		if r == 0 {
			fmt.Printf("(%s, torch %s, %d thread)\n", py, t64.Torch, t64.Threads)
		}
		ratios = append(ratios, t64.CPUPerSt/cpu)
		ratios32 = append(ratios32, t32.CPUPerSt/cpu)
		fmt.Printf("%-6d %14.0f %14.0f %16.0f %16.0f %16.2f\n", r, wall, cpu, t64.CPUPerSt, t32.CPUPerSt, t64.CPUPerSt/cpu)
	}
	fmt.Printf("median ratio of CPU time per step, PyTorch float64 / fresgld: %.2f (float32: %.2f)\n", median(ratios), median(ratios32))
	return nil
}

func sampler(l *models.Logistic) (*exchange.Sampler, error) {
	mb, err := energy.NewMinibatch(l, n)
	if err != nil {
		return nil, err
	}
	cfg, err := exchange.SGLDMethod.Config(exchange.Setup{Tau1: 1, Tau2: 2, Eta: langevin.Constant{Step: eta}, Cold: mb, Seed: 1})
	if err != nil {
		return nil, err
	}
	return exchange.New(cfg, [][]float64{make([]float64, p)})
}

// goLoop times steps of s: wall and thread CPU nanoseconds per step.
func goLoop(s *exchange.Sampler, steps int) (wall, cpu float64, err error) {
	for range 500 { // warm-up, as the PyTorch loop has
		if err := s.Step(); err != nil {
			return 0, 0, err
		}
	}
	unlock := cputime.Lock()
	defer unlock()
	t0, c0 := time.Now(), cputime.Thread()
	for range steps {
		if err := s.Step(); err != nil {
			return 0, 0, err
		}
	}
	c := cputime.Thread() - c0
	w := time.Since(t0)
	return float64(w.Nanoseconds()) / float64(steps), float64(c.Nanoseconds()) / float64(steps), nil
}

func torchLoop(py, script, data string, steps int, dtype string) (torchRun, error) {
	cmd := exec.Command(py, script, data, strconv.Itoa(N), strconv.Itoa(p), strconv.Itoa(n), strconv.FormatFloat(eta, 'g', -1, 64), strconv.Itoa(steps), dtype)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return torchRun{}, fmt.Errorf("%s: %w", script, err)
	}
	var t torchRun
	if err := json.Unmarshal(out, &t); err != nil {
		return torchRun{}, fmt.Errorf("%s printed %q: %w", script, out, err)
	}
	return t, nil
}

// writeData writes X (row-major) then y as little-endian float64.
func writeData(path string, l *models.Logistic) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	var b [8]byte
	for _, vs := range [][]float64{l.X, l.Y} {
		for _, v := range vs {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			w.Write(b[:])
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}
