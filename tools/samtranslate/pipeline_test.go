package samtranslate

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/srctree"
	"gopkg.in/yaml.v3"
)

var repoRoot = srctree.Path()

// The workflows call the Makefile, never repeat its steps: every `make X`
// they run is a target of the Makefile. (That their actions are pinned is
// the preflight's PS-WF-005; that ci.yml runs .ci/run, and .ci/run make
// lint and make test, its PS-CI-001.)
func TestWorkflowsCallTheMakefile(t *testing.T) {
	t.Parallel()
	mk, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(repoRoot, ".github", "workflows", "*.yml"))
	if len(files) < 2 {
		t.Fatalf("workflows %v, want ci.yml and deploy.yml", files)
	}
	makeCall := regexp.MustCompile(`\bmake ([a-z][\w-]*)`)
	targets := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Jobs map[string]struct {
				Steps []struct {
					Run string `yaml:"run"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(raw, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for job, j := range wf.Jobs {
			for _, s := range j.Steps {
				run := s.Run
				if strings.Contains(run, ".ci/run") {
					ci, err := os.ReadFile(filepath.Join(repoRoot, ".ci", "run"))
					if err != nil {
						t.Fatal(err)
					}
					run += "\n" + string(ci)
				}
				for _, m := range makeCall.FindAllStringSubmatch(run, -1) {
					targets++
					if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(m[1]) + `:`).Match(mk) {
						t.Errorf("%s, job %s runs make %s, which the Makefile does not have", filepath.Base(f), job, m[1])
					}
				}
			}
		}
	}
	if targets < 4 {
		t.Errorf("the workflows call %d make targets; ci.yml runs lint, smoke-local and test, deploy.yml smoke", targets)
	}
	// .ci/run also runs the smoke test on the local stack.
	ci, _ := os.ReadFile(filepath.Join(repoRoot, ".ci", "run"))
	if !strings.Contains(string(ci), "make smoke-local") {
		t.Error(".ci/run does not run make smoke-local")
	}
}

// make deploy ENV=dev builds and deploys samconfig.toml's dev environment:
// a stand-in sam on PATH records what make asks of it.
func TestMakeDeployUsesTheConfigEnv(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	log := filepath.Join(bin, "calls")
	script := "#!/bin/sh\necho \"$*\" >> " + log + "\n"
	if err := os.WriteFile(filepath.Join(bin, "sam"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ENV=dev"}, "build --config-env dev\ndeploy --config-env dev --resolve-s3\n"},
		{[]string{"ENV=prod", "S3_BUCKET=artifacts"}, "build --config-env prod\ndeploy --config-env prod --s3-bucket artifacts\n"},
		{nil, "build\ndeploy\n"},
	} {
		os.Remove(log)
		cmd := exec.Command("make", append([]string{"--no-print-directory", "-s", "-C", repoRoot, "deploy"}, tc.args...)...)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make deploy %v: %v\n%s", tc.args, err, out)
		}
		got, _ := os.ReadFile(log)
		if string(got) != tc.want {
			t.Errorf("make deploy %v asked sam:\n%s\nwant:\n%s", tc.args, got, tc.want)
		}
	}
}
