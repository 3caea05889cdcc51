package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fresgld/fresgld/exchange"
)

func init() {
	rootCmd.SetFlagErrorFunc(flagError)
}

// flagError rewrites pflag's report of a value that does not parse, which
// for a number shows Go's strconv text ("strconv.ParseUint: parsing "-1":
// invalid syntax"), into "--flag = value: what it wants", the form of every
// other flag error. Other flag errors (an unknown flag) pass unchanged.
func flagError(_ *cobra.Command, err error) error {
	var iv *pflag.InvalidValueError
	var ne *strconv.NumError
	if !errors.As(err, &iv) {
		return err
	}
	name, v := "--"+iv.GetFlag().Name, iv.GetValue()
	if !errors.As(err, &ne) { // a flag type of ours, whose error says what it wants
		return fmt.Errorf("%s = %q: %w", name, v, errors.Unwrap(err))
	}
	var want string
	switch t := iv.GetFlag().Value.Type(); t {
	case "uint64", "uint", "uint32":
		want = fmt.Sprintf("a whole number from 0 to %d", uint64(math.MaxUint64))
		if t == "uint32" {
			want = fmt.Sprintf("a whole number from 0 to %d", uint32(math.MaxUint32))
		}
	case "int", "int64", "int32":
		want = "a whole number"
		if errors.Is(ne.Err, strconv.ErrRange) {
			want = fmt.Sprintf("a whole number from %d to %d", math.MinInt64, math.MaxInt64)
			if t == "int32" {
				want = fmt.Sprintf("a whole number from %d to %d", math.MinInt32, math.MaxInt32)
			}
		} else if x, err := strconv.ParseFloat(v, 64); err == nil && x == math.Trunc(x) && math.Abs(x) < 1e18 {
			want += fmt.Sprintf(", written out (%.0f, not %s)", x, v)
		}
	case "float64", "float32":
		want = "a number such as 0.5, 1e-3, Inf or NaN"
		if errors.Is(ne.Err, strconv.ErrRange) {
			want = "a number within ±1.8e308"
		}
	case "bool":
		want = "true or false (the flag alone means true)"
	default:
		want = "a value of type " + t
	}
	return fmt.Errorf("%s = %q: want %s", name, v, want)
}

// checkChainFlag refuses --chain 0 typed by the user: the zero value means
// "all chains" only as the flag's default, and a user who typed it meant
// a chain (they are numbered from 1), as --chain -1 is refused.
func checkChainFlag(fl *pflag.FlagSet, c chainFlags) error {
	if fl.Changed("chain") && c.Chain == 0 {
		return errors.New("--chain = 0: chains are numbered from 1 (leave --chain out to run all --chains)")
	}
	return nil
}

// checkChainCount checks --chains before chainFlags.ids allocates the list.
func checkChainCount(c chainFlags) error {
	_, err := c.ids()
	return err
}

// oneLevel says whether method m runs a single chain: it has no hot
// level and no swaps, so no swap-energy pilot, hot minibatch or ladder.
func oneLevel(m exchange.Method) bool {
	return m == exchange.SGLDMethod || m == exchange.CorrectedMethod
}

// notApplicable refuses the flags, typed by the user, that method m would
// silently ignore: with one chain (sgld, corrected) there are no levels,
// swaps or hot minibatch; resgld runs its hot level on the cold minibatch;
// reld swaps with exact energies only. A user who sets them expects an
// effect, and a run that ignores them answers a question they did not ask.
func notApplicable(fl *pflag.FlagSet, m exchange.Method, flags []string) error {
	var why, alt string
	var ignored []string
	switch {
	case oneLevel(m):
		why, alt = "runs one chain, without levels or swaps", "a replica-exchange method (fresgld, mresgld, resgld)"
		ignored = flags
	case m == exchange.ReSGLDMethod:
		why, alt = "runs every level on the cold minibatch (--batch)", "fresgld or mresgld, whose hot levels have minibatches of their own"
		ignored = []string{"hot-batch", "hot-share"}
	case m == exchange.ReLDMethod:
		why, alt = "swaps with exact energies only", "fresgld, mresgld or resgld, which swap on minibatch energies"
		ignored = []string{"swap-energies", "swap-pilot", "swap-noise-cap", "swap-gaussian", "exact-every"}
	}
	var set []string
	for _, name := range ignored {
		if f := fl.Lookup(name); f != nil && f.Changed {
			set = append(set, "--"+name+" "+f.Value.String())
		}
	}
	if len(set) == 0 {
		return nil
	}
	them := "them"
	if len(set) == 1 {
		them = "it"
	}
	return fmt.Errorf("%s: --method %s %s, so it would ignore %s; drop %s, or choose %s", strings.Join(set, ", "), m, why, them, them, alt)
}

// methodHelp lists every method --method accepts, for the flag's help.
const methodHelp = "fresgld, mresgld, resgld, sgld, corrected or reld"
