package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagWord is a flag named in a message: --name.
// (--auto-* stands for a family of flags, and is not one).
var flagWord = regexp.MustCompile(`(?:^|[^-\w])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?:[^-\w]|$)`)

// notFlags are --words in the sources that name no fresgld flag: other
// programs' options, quoted where a message shows them.
var notFlags = map[string]bool{
	"no-install-recommends": true, // apt-get, in the Stan set-up's hint
}

// messageFlags collects, for each non-test Go file of dir, the flags its
// string literals name.
func messageFlags(t *testing.T, dir string) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	out := map[string][]string{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, m := range flagWord.FindAllStringSubmatch(s, -1) {
				if !notFlags[m[1]] {
					out[filepath.Base(p)] = append(out[filepath.Base(p)], m[1])
				}
			}
			return true
		})
	}
	return out
}

// commandOf is the command whose messages a file of cmd/fresgld holds,
// from its name (nil for a file shared by several).
func commandOf(file string) []string {
	name := strings.TrimSuffix(file, ".go")
	for _, c := range []string{"gmm", "logistic", "regress", "mixture", "sample", "merge", "repair"} {
		if name == c || strings.HasPrefix(name, c+"_") {
			return []string{c}
		}
	}
	// A reproduce file defines several studies and names the sampling
	// commands' flags in its descriptions: it is checked as shared.
	return nil
}

// Every remedy names a flag that exists: each --flag in the string
// literals of a command's own files (logistic*.go: logistic) is one of
// that command's flags, and each in a file shared by several commands,
// in analysis or in dataset is a flag of some command. regress once told
// its users to give --drop-constant and --no-standardize, which only
// logistic has.
func TestMessagesNameRealFlags(t *testing.T) {
	all := map[string]bool{"help": true, "version": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { all[f.Name] = true })
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(rootCmd)
	var bad []string
	for file, flags := range messageFlags(t, ".") {
		path := commandOf(file)
		if path == nil {
			for _, f := range flags {
				if !all[f] {
					bad = append(bad, "cmd/fresgld/"+file+": --"+f+" is no command's flag")
				}
			}
			continue
		}
		cmd, _, err := rootCmd.Find(path)
		if err != nil || cmd.Name() != path[len(path)-1] {
			t.Errorf("%s: no command %v", file, path)
			continue
		}
		for _, f := range flags {
			if cmd.Flags().Lookup(f) == nil && f != "help" {
				bad = append(bad, "cmd/fresgld/"+file+": --"+f+" is not a flag of fresgld "+strings.Join(path, " "))
			}
		}
	}
	for _, dir := range []string{"../../analysis", "../../dataset"} {
		for file, flags := range messageFlags(t, dir) {
			for _, f := range flags {
				if !all[f] {
					bad = append(bad, filepath.Base(dir)+"/"+file+": --"+f+" is no command's flag")
				}
			}
		}
	}
	sort.Strings(bad)
	for _, b := range slicesCompact(bad) {
		t.Error(b)
	}
}

func slicesCompact(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// flagsOf fails t for each --flag that text names and the command path
// does not have.
func flagsOf(t *testing.T, text string, path ...string) {
	t.Helper()
	cmd, _, err := rootCmd.Find(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range flagWord.FindAllStringSubmatch(text, -1) {
		if cmd.Flags().Lookup(m[1]) == nil && m[1] != "help" {
			t.Errorf("fresgld %s says %q, but has no --%s", strings.Join(path, " "), text, m[1])
		}
	}
}

// Messages of the shared layers (a data file's errors, the chain checks)
// name only the flags of the command that prints them: a constant feature
// refused by regress, which has neither --drop-constant nor
// --no-standardize, and by logistic, which has both.
func TestSharedMessagesNameTheCommandsFlags(t *testing.T) {
	data := writeFile(t, "constant.csv", "x1,x2,y\n1,0.5,1\n1,0.7,0\n1,0.1,1\n1,0.3,0\n1,0.9,1\n1,0.2,0\n")
	for _, c := range []string{"regress", "logistic"} {
		err := run(t, c, "--data", data, "--label", "y", "--out", t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "constant") {
			t.Fatalf("%s on a constant feature: %v", c, err)
		}
		flagsOf(t, err.Error(), c)
	}
}
