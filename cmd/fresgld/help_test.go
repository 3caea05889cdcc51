package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// helpLimit is the most lines a command's --help may print, flags aside:
// what the command does, one example, the links to docs/ and the flag
// groups' titles. The flags themselves are not counted: logistic has 36,
// regress 33, and each is a setting that works, so none is hidden to make
// the text fit; instead each flag's usage is one line of at most
// helpFlagWidth columns, and the reasoning behind a flag lives in
// docs/reference/<command>.md. (Issue 52: help that fits a screen.)
const helpLimit = 40

// helpFlagWidth is the widest a flag's line may print, in columns (runes),
// pflag's padding and "(default ...)" included.
const helpFlagWidth = 120

// helpCount counts the lines of a --help output that helpLimit bounds (every
// line but the flags' own, which follow "Usage:"), and lists the flag lines
// that break the one-short-line rule.
func helpCount(out string) (lines int, bad []string) {
	usage := false
	inFlags := false
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		switch {
		case l == "Usage:":
			usage = true
		case usage && strings.HasSuffix(l, "lags:"):
			inFlags = true // "Flags:", "Global Flags:", "Input flags:", ...
		case l == "":
			inFlags = false
		case inFlags && flagLine.MatchString(l):
			if w := utf8.RuneCountInString(l); w > helpFlagWidth {
				bad = append(bad, fmt.Sprintf("%d columns: %s", w, strings.TrimSpace(l)))
			}
			continue
		case inFlags:
			bad = append(bad, "a flag's usage on a second line: "+strings.TrimSpace(l))
			continue
		}
		lines++
	}
	return lines, bad
}

// helpOf is what `fresgld <path> --help` prints.
func helpOf(t *testing.T, path []string) string {
	t.Helper()
	var out bytes.Buffer
	rootCmd.SetOut(&out)
	defer rootCmd.SetOut(nil)
	if err := run(t, append(append([]string{}, path...), "--help")...); err != nil {
		t.Fatalf("fresgld %s --help: %v", strings.Join(path, " "), err)
	}
	return out.String()
}

// Every command's --help fits a screen: at most helpLimit lines besides its
// flags, each flag on one line of at most helpFlagWidth columns.
func TestHelpFitsAScreen(t *testing.T) {
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		name := strings.Join(append([]string{"fresgld"}, path...), " ")
		out := helpOf(t, path)
		n, bad := helpCount(out)
		if n > helpLimit {
			t.Errorf("%s --help: %d lines besides its flags, more than %d; move the reasoning into docs/ and link it", name, n, helpLimit)
		}
		for _, b := range bad {
			t.Errorf("%s --help: %s", name, b)
		}
		for _, s := range c.Commands() {
			walk(s, append(append([]string{}, path...), s.Name()))
		}
	}
	walk(rootCmd, nil)
}

// The count itself: a text of helpLimit+1 lines fails whatever flags follow,
// the flags' lines are not counted, and a flag's second line or an
// over-wide one is caught.
func TestHelpCount(t *testing.T) {
	text := strings.Repeat("a line of what the command does\n", helpLimit-5)
	flags := "Usage:\n  fresgld x [flags]\n\nSampler flags:\n      --eta float   step size η (default 0.1)\n  -h, --help        help for x\n"
	if n, bad := helpCount(text + "\n" + flags); n != helpLimit || len(bad) != 0 {
		t.Errorf("%d lines, %v; want %d, none", n, bad, helpLimit)
	}
	if n, _ := helpCount("one more\n" + text + "\n" + flags); n != helpLimit+1 {
		t.Errorf("%d lines; want %d", n, helpLimit+1)
	}
	wide := "      --x float   " + strings.Repeat("é", helpFlagWidth) + "\n"
	second := "      --y float   a usage\n                  on two lines\n"
	if _, bad := helpCount(flags + wide + second); len(bad) != 2 {
		t.Errorf("a too wide flag line and a second line: %v", bad)
	}
}

// The sampling commands list their flags in flagGroups' groups: a flag
// added to one of them without a group would put them all back in one
// list of thirty.
func TestSamplingCommandsGroupTheirFlags(t *testing.T) {
	for _, c := range []string{"gmm", "logistic", "mixture", "regress", "sample"} {
		out := helpOf(t, []string{c})
		if !strings.Contains(out, "\nSampler flags:\n") || strings.Contains(out, "\nFlags:\n") {
			t.Errorf("fresgld %s --help does not group its flags: name each of its flags in a group of flagGroups (help.go)", c)
		}
	}
}
