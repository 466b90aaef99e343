package samtemplate

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

var repoRoot = filepath.Join("..", "..")

// The workflows call the Makefile, never repeat its steps: every `make X`
// they run is a target of the Makefile, and every action is pinned to a
// version (a tag like v4 or a commit), never a branch.
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
	pinned := regexp.MustCompile(`^[\w.-]+/[\w.-]+(/[\w./-]+)?@(v\d+(\.\d+)*|[0-9a-f]{40})$`)
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
		for job, j := range wf.Jobs {
			for _, s := range j.Steps {
				if s.Uses != "" && !pinned.MatchString(s.Uses) {
					t.Errorf("%s, job %s: %q is not pinned to a version", filepath.Base(f), job, s.Uses)
				}
				for _, m := range makeCall.FindAllStringSubmatch(s.Run, -1) {
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
	ci, _ := os.ReadFile(filepath.Join(repoRoot, ".ci", "run"))
	for _, target := range []string{"make lint", "make smoke-local", "make test"} {
		wf, _ := os.ReadFile(filepath.Join(repoRoot, ".github", "workflows", "ci.yml"))
		if !strings.Contains(string(ci), target) || !strings.Contains(string(wf), target) {
			t.Errorf("%s is not in both .ci/run and ci.yml", target)
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
