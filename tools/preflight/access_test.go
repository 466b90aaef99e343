package preflight

import (
	"os"
	"strings"
	"testing"
)

func loadVariants(t *testing.T) []env {
	t.Helper()
	var envs []env
	for _, name := range stackVariants {
		envs = append(envs, loadEnv(t, name))
	}
	return envs
}

// Every role and boundary reaches only its own stacks, and its access there
// is the reviewed snapshot. UPDATE_PREFLIGHT=1 (make preflight-accept)
// writes the snapshot instead, once nothing reaches outside. make lint
// (-short) asks the stacks the pipeline deploys, dev and prod; make test
// asks every variant.
func TestAccessIsTheReviewedSnapshot(t *testing.T) {
	t.Parallel()
	needEvaluator(t)
	all := loadVariants(t)
	envs := all
	if testing.Short() && os.Getenv("UPDATE_PREFLIGHT") != "1" {
		envs = []env{loadEnv(t, "dev"), loadEnv(t, "prod")}
	}
	findings, lines, err := effectiveAccess(envs, all)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Error(f)
	}
	if len(lines) == 0 {
		t.Fatal("no role may do anything: the enumeration is broken")
	}
	if os.Getenv("UPDATE_PREFLIGHT") == "1" {
		if len(findings) > 0 {
			t.Fatal("the snapshot is not written while a role reaches beyond its stacks")
		}
		if err := writeAccess(repoRoot, lines); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: %d allowed requests", accessFile, len(lines))
		return
	}
	snapshot, err := readAccess(repoRoot)
	if err != nil {
		t.Fatalf("%v (make preflight-accept writes it)", err)
	}
	if len(envs) < len(all) {
		var asked []string
		for _, l := range snapshot {
			for _, e := range envs {
				if strings.HasPrefix(l, e.name+" ") {
					asked = append(asked, l)
				}
			}
		}
		snapshot = asked
	}
	for _, f := range compareAccess(snapshot, lines) {
		t.Error(f)
	}
}
