package usermodel

import (
	"strings"
	"testing"
)

func TestUncNames(t *testing.T) {
	if got := strings.Join(uncNames([]string{"mu", "theta.1", "Sigma.1.2"}), " "); got != "mu_unc__ theta_1_unc__ Sigma_1_2_unc__" {
		t.Errorf("got %q", got)
	}
	if got := strings.Join(uncNames([]string{"theta.1", "theta_1"}), " "); got != "unc_1__ unc_2__" {
		t.Errorf("colliding names: got %q", got)
	}
}
