package results

import (
	"os"
	"strings"
	"testing"

	"github.com/fresgld/fresgld/output"
)

// A stopped chain whose file holds fewer draws than it took (a write that
// failed on a full disk) is not said to keep its draws: the message gives
// the count on disk and the remedy. One whose file holds them all is.
func TestStoppedErrorCountsDrawsOnDisk(t *testing.T) {
	d, err := output.Prepare(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(d.File(ChainName(1)), []byte("# model = fresgld gmm\nlp__,a\n1,2\n3,4\n5,6\n# stopped\n"), 0o644)
	os.WriteFile(d.File(ChainName(2)), nil, 0o644)
	s := Summary{
		PerChain: []ChainDraws{{Chain: 1, Draws: 3, Steps: 9, Status: StatusStopped}, {Chain: 2, Draws: 3, Steps: 9, Status: StatusStopped}},
		Stopped:  []ChainStop{{Chain: 1, Error: "disk"}, {Chain: 2, Error: "disk"}},
	}
	msg := StoppedError(s, 2, d).Error()
	if !strings.Contains(msg, "chain 1 of 2 stopped after 9 steps (its draws are kept)") {
		t.Errorf("chain 1, all on disk: %s", msg)
	}
	if !strings.Contains(msg, "chain-2.csv holds only 0 of its 3 draws") || !strings.Contains(msg, "free space") || strings.Contains(msg, "chain 2 of 2 stopped after 9 steps (its draws are kept)") {
		t.Errorf("chain 2, nothing on disk: %s", msg)
	}
}

// The one chain of a run of --chain 2 is "chain 2", not "chain 2 of 1";
// a chain of a run of all its chains is "chain c of n".
func TestStoppedErrorNamesTheChainOfATask(t *testing.T) {
	one := Summary{PerChain: []ChainDraws{{Chain: 2, Draws: 5, Steps: 50, Status: StatusInterrupted}}}
	if msg := StoppedError(one, 1, nil).Error(); !strings.HasPrefix(msg, "chain 2 interrupted after 50 steps") {
		t.Errorf("--chain 2: %s", msg)
	}
	all := Summary{PerChain: []ChainDraws{{Chain: 1, Status: StatusNeverStarted}, {Chain: 2, Status: StatusNeverStarted}}}
	if msg := StoppedError(all, 2, nil).Error(); !strings.Contains(msg, "chain 2 of 2 never started") {
		t.Errorf("--chains 2: %s", msg)
	}
}
