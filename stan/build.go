// Package stan makes a Stan model a native model process of fresgld's
// protocol (docs/model-protocol.md): it translates the model with the
// stanc of the installed rstan, compiles it with Stan Math (StanHeaders)
// and g++ beside server.cpp into one program, cached by a hash of
// everything that goes into it, and reads the model's names, its draws in
// Stan's constrained form, and its data and inits from CmdStan's JSON.
//
// Why not rstan's own log_prob: through R each request costs about 200 µs
// and R takes seconds to start, which on a cheap model is most of a run;
// the compiled program answers in about a microsecond over a pipe. Why not
// BridgeStan or CmdStan: neither is packaged by Debian, and both need a
// newer stanc than the one Debian's rstan carries.
package stan

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

//go:embed cpp/server.cpp
var serverCode []byte

// Toolchain is what compiles a Stan model: R's packages rstan (its stanc),
// StanHeaders (Stan Math and the Stan library), RcppEigen and BH, and g++.
type Toolchain struct {
	Rscript, CXX               string
	StanHeaders, Eigen, Boost  string // include folders
	StanVersion, RstanVersion  string
	StanHeadersLib, CXXVersion string
	RstanDir                   string // rstan's package folder
}

// ErrNoToolchain is the error of a machine without the toolchain.
var ErrNoToolchain = errors.New("a Stan model needs R with rstan, StanHeaders, RcppEigen and BH, Boost's headers and g++; on Debian: apt-get install r-cran-rstan r-cran-stanheaders r-cran-rcppeigen r-cran-bh libboost-dev g++")

// FindToolchain locates the toolchain, or says what is missing. R takes
// half a second to start, as long as the whole run of a small model, so
// what it found is kept in the cache folder (toolchain.json) beside the
// sizes and times of the files it found, and asked again only when one of
// them changed.
func FindToolchain() (*Toolchain, error) {
	dir, err := defaultCache()
	if err != nil {
		return probeToolchain()
	}
	path := filepath.Join(dir, "toolchain.json")
	var kept struct {
		T     Toolchain
		Stamp string
	}
	if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &kept) == nil && kept.Stamp != "" && kept.Stamp == kept.T.stamp() {
		return &kept.T, nil
	}
	t, err := probeToolchain()
	if err != nil {
		return nil, err
	}
	kept.T, kept.Stamp = *t, t.stamp()
	if b, err := json.Marshal(kept); err == nil && os.MkdirAll(dir, 0o755) == nil {
		writeOnce(path, b)
	}
	return t, nil
}

// stamp is the sizes and times of the toolchain's files: a new R, rstan,
// StanHeaders, RcppEigen, Boost or compiler changes it. "" when one is
// missing.
func (t *Toolchain) stamp() string {
	cxx, err := exec.LookPath(t.CXX)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, f := range []string{t.Rscript, cxx, filepath.Join(t.RstanDir, "DESCRIPTION"), filepath.Join(t.StanHeaders, "..", "DESCRIPTION"), filepath.Join(t.Eigen, "..", "DESCRIPTION"), filepath.Join(t.Boost, "boost", "version.hpp"), "/usr/include/boost/version.hpp"} {
		st, err := os.Stat(f)
		if err != nil {
			fmt.Fprintf(&b, "%s:-;", f)
			continue
		}
		fmt.Fprintf(&b, "%s:%d:%d;", f, st.Size(), st.ModTime().UnixNano())
	}
	return b.String()
}

// defaultCache is the folder of compiled models and the toolchain's probe.
func defaultCache() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder for compiled models: %w", err)
	}
	return filepath.Join(dir, "fresgld", "stan"), nil
}

// probeToolchain asks R where the toolchain is.
func probeToolchain() (*Toolchain, error) {
	t := &Toolchain{CXX: os.Getenv("CXX")}
	if t.CXX == "" {
		t.CXX = "g++"
	}
	var err error
	if t.Rscript, err = exec.LookPath("Rscript"); err != nil {
		return nil, fmt.Errorf("%w (Rscript not found)", ErrNoToolchain)
	}
	if _, err := exec.LookPath(t.CXX); err != nil {
		return nil, fmt.Errorf("%w (%s not found)", ErrNoToolchain, t.CXX)
	}
	out, err := exec.Command(t.Rscript, "--vanilla", "-e", `f <- function(p, d) { x <- system.file(d, package = p); if (x == "") "-" else x }
v <- function(p) tryCatch(as.character(packageVersion(p)), error = function(e) "-")
cat(f("StanHeaders", "include"), f("RcppEigen", "include"), f("BH", "include"), f("StanHeaders", "lib"), v("StanHeaders"), v("rstan"), f("rstan", ""), sep = "\n")`).Output()
	if err != nil {
		return nil, fmt.Errorf("%w (Rscript failed: %v)", ErrNoToolchain, err)
	}
	f := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(f) != 7 {
		return nil, fmt.Errorf("%w (R answered %q)", ErrNoToolchain, out)
	}
	t.StanHeaders, t.Eigen, t.Boost, t.StanHeadersLib, t.StanVersion, t.RstanVersion, t.RstanDir = f[0], f[1], f[2], f[3], f[4], f[5], f[6]
	for name, v := range map[string]string{"StanHeaders": t.StanHeaders, "RcppEigen": t.Eigen, "rstan": t.RstanVersion} {
		if v == "-" {
			return nil, fmt.Errorf("%w (R's package %s is not installed)", ErrNoToolchain, name)
		}
	}
	if !hasBoost(t.Boost) && !hasBoost("/usr/include") {
		return nil, fmt.Errorf("%w (Boost's headers are missing: Debian's r-cran-bh needs libboost-dev)", ErrNoToolchain)
	}
	v, _ := exec.Command(t.CXX, "--version").Output()
	t.CXXVersion, _, _ = strings.Cut(string(v), "\n")
	return t, nil
}

func hasBoost(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "boost", "version.hpp"))
	return dir != "-" && err == nil
}

// flags are the compiler's arguments besides the sources: rstan's own
// (rstan:::rstanplugin), without its threading, which needs Intel's TBB.
func (t *Toolchain) flags() []string {
	f := []string{"-std=c++14", "-O3", "-w",
		"-I" + filepath.Join(t.StanHeaders, "src"), "-I" + t.StanHeaders,
		"-I" + t.Eigen, "-I" + filepath.Join(t.Eigen, "unsupported"),
		"-DEIGEN_NO_DEBUG", "-DBOOST_DISABLE_ASSERTS", "-DBOOST_PENDING_INTEGER_LOG2_HPP", "-DBOOST_NO_AUTO_PTR", "-D_REENTRANT",
		"-include", filepath.Join(t.StanHeaders, "stan", "math", "prim", "mat", "fun", "Eigen.hpp")}
	if hasBoost(t.Boost) {
		f = append(f, "-I"+t.Boost)
	}
	return f
}

func (t *Toolchain) libs() []string {
	if t.StanHeadersLib == "-" {
		return nil
	}
	return []string{"-L" + t.StanHeadersLib, "-lStanHeaders"}
}

// Binary is a compiled Stan model.
type Binary struct {
	Path string // the program
	Lib  string // the same model as a shared library, for in-process use
	Name string // the model's name, from its file's
	// Source is the .stan file it was compiled from.
	Source string
}

// Compile translates and compiles the Stan model in path, or finds it in
// the cache (cacheDir, "" for the user's cache folder) where the same code
// was compiled by the same toolchain before. log hears what it is doing
// (a compilation takes about a minute).
func Compile(ctx context.Context, path, cacheDir string, log io.Writer) (*Binary, error) {
	code, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := FindToolchain()
	if err != nil {
		return nil, err
	}
	name := modelName(path)
	if cacheDir == "" {
		if cacheDir, err = defaultCache(); err != nil {
			return nil, err
		}
	}
	h := sha256.New()
	for _, part := range [][]byte{code, serverCode, []byte(name), []byte(t.StanVersion), []byte(t.RstanVersion), []byte(t.CXXVersion), []byte(strings.Join(t.flags(), " "))} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	dir := filepath.Join(cacheDir, name+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	b := &Binary{Path: filepath.Join(dir, "model"), Lib: filepath.Join(dir, "model.so"), Name: name, Source: path}
	if _, err := os.Stat(b.Lib); err == nil {
		return b, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(cacheDir, ".build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintf(log, "compiling %s with Stan %s (rstan %s's stanc, then %s; once for this model, kept in %s)\n", path, t.StanVersion, t.RstanVersion, t.CXX, dir)
	hpp := filepath.Join(tmp, "model.hpp")
	if err := t.stanc(ctx, path, name, code, hpp); err != nil {
		return nil, err
	}
	cpp := filepath.Join(tmp, "server.cpp")
	if err := os.WriteFile(cpp, serverCode, 0o644); err != nil {
		return nil, err
	}
	// One object, linked twice: the program (the protocol, info, write,
	// init) and the shared library that package stan loads in process.
	obj := filepath.Join(tmp, "model.o")
	steps := [][]string{
		append(t.flags(), "-fPIC", `-DFRESGLD_STAN_MODEL="model.hpp"`, "-I"+tmp, "-c", cpp, "-o", obj),
		append([]string{obj, "-o", filepath.Join(tmp, "model")}, t.libs()...),
		append([]string{"-shared", obj, "-o", filepath.Join(tmp, "model.so")}, t.libs()...),
	}
	for _, args := range steps {
		cmd := exec.CommandContext(ctx, t.CXX, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("compiling %s with Stan Math: %s: %w\n%s", path, t.CXX, err, lastLines(stderr.String(), 20))
		}
	}
	os.Remove(obj)
	// Published whole or not at all: a rename is atomic, and another
	// fresgld that compiled the same model first has already put it there.
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(b.Path); serr != nil {
			return nil, err
		}
	}
	return b, nil
}

// modelName is a C++ identifier from the model file's name: Stan's
// messages name the model by it.
func modelName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	s := regexp.MustCompile(`[^A-Za-z0-9_]`).ReplaceAllString(base, "_")
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "m_" + s
	}
	return s
}

// stanc writes the model's C++ to hpp with rstan's stanc.
func (t *Toolchain) stanc(ctx context.Context, path, name string, code []byte, hpp string) error {
	script := fmt.Sprintf(`r <- tryCatch(rstan::stanc(file = %q, model_name = %q, obfuscate_model_name = FALSE, verbose = FALSE),
  error = function(e) { cat(conditionMessage(e), file = stderr()); quit(status = 3) })
writeLines(r$cppcode, %q)`, path, name, hpp)
	cmd := exec.CommandContext(ctx, t.Rscript, "--vanilla", "-e", script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return parseError(path, t, code, stderr.String(), err)
	}
	return nil
}

// newSyntax matches what Stan 2.26 and later added to the language and
// older stanc cannot read.
var newSyntax = regexp.MustCompile(`\barray\s*\[|\blower\s*=.*\bupper\b.*\boffset\b|\bprofile\s*\(|\.\*=|\bjacobian\s*\+=|\b_jacobian\s*\(|\b(tuple|complex|complex_vector|complex_matrix)\b`)

// parseError explains a model the installed stanc did not translate.
func parseError(path string, t *Toolchain, code []byte, msg string, err error) error {
	msg = strings.TrimSpace(msg)
	for _, noise := range []string{"Error in stanc(", "Calls:", "Execution halted"} {
		if i := strings.Index(msg, noise); i >= 0 && noise != "Error in stanc(" {
			msg = strings.TrimSpace(msg[:i])
		}
	}
	why := fmt.Sprintf("Stan %s reads the language as it was before Stan 2.26", t.StanVersion)
	if loc := newSyntax.FindIndex(code); loc != nil {
		line := bytes.Count(code[:loc[0]], []byte("\n")) + 1
		why += fmt.Sprintf("; line %d uses newer syntax (%q)", line, strings.TrimSpace(string(code[loc[0]:min(loc[1]+8, len(code))])))
	}
	return fmt.Errorf("--stan %s: the installed stanc (rstan %s) cannot translate it (%v):\n%s\n%s: declare arrays as `real y[N];`, not `array[N] real y;`, and write the rest as Stan 2.21's manual does (mc-stan.org/docs/2_21/reference-manual); fresgld translates with the stanc of the rstan installed (Debian's r-cran-rstan), and a newer rstan has not been tried with it",
		path, t.RstanVersion, err, lastLines(msg, 15), why)
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
