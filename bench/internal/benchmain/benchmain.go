// Package benchmain holds what the bench commands' mains share: the end
// of a run that failed.
package benchmain

import (
	"fmt"
	"os"
)

// Check ends the command name on err, printing "name: err" on stderr and
// exiting with status 1; a nil err returns.
func Check(name string, err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}
