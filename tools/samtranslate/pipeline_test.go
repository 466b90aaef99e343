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
// they run is a target of the Makefile, and every action is pinned to a full
// commit SHA with its release tag in a comment (GitHub's security hardening
// guide: a SHA is the only immutable reference; a tag can be moved to other
// code by whoever controls the action's repository).
func TestWorkflowsCallTheMakefileAndPinTheirActions(t *testing.T) {
	t.Parallel()
	mk, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(repoRoot, ".github", "workflows", "*.yml"))
	if len(files) < 2 {
		t.Fatalf("workflows %v, want ci.yml and deploy.yml", files)
	}
	pinned := regexp.MustCompile(`(?m)^\s*-?\s*uses: ([\w.-]+/[\w.-]+(/[\w./-]+)?)@([0-9a-f]{40}) # (v\d+(\.\d+)*)$`)
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
					Uses string `yaml:"uses"`
					Run  string `yaml:"run"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(raw, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		// The raw lines: YAML drops the comment that names the tag.
		lines := map[string]bool{}
		for _, m := range pinned.FindAllStringSubmatch(string(raw), -1) {
			lines[m[1]+"@"+m[3]] = true
		}
		for job, j := range wf.Jobs {
			for _, s := range j.Steps {
				if s.Uses != "" && !strings.HasPrefix(s.Uses, "./") && !lines[s.Uses] {
					t.Errorf("%s, job %s: %q is not pinned to a commit SHA with its tag in a comment (uses: owner/repo@<40 hex> # vX.Y.Z)", filepath.Base(f), job, s.Uses)
				}
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
	// ci.yml runs .ci/run itself, so GitHub and the project's CI run one
	// definition of the checks.
	ci, _ := os.ReadFile(filepath.Join(repoRoot, ".ci", "run"))
	wf, _ := os.ReadFile(filepath.Join(repoRoot, ".github", "workflows", "ci.yml"))
	if !regexp.MustCompile(`(?m)^\s+run: bash \.ci/run$`).Match(wf) {
		t.Error("ci.yml does not run .ci/run")
	}
	for _, target := range []string{"make lint", "make smoke-local", "make test"} {
		if !strings.Contains(string(ci), target) {
			t.Errorf(".ci/run does not run %s", target)
		}
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
