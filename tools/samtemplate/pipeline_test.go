package samtemplate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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

// The deploy role trusts GitHub's OIDC tokens of this repository's main
// branch and its dev and prod environments, for STS, and nothing else.
func TestDeployRoleTrustsThisRepositoryOnly(t *testing.T) {
	t.Parallel()
	tpl, err := Load(filepath.Join(repoRoot, "pipeline", "roles.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	trust := asSlice(tpl.Get("Resources", "DeployRole", "Properties", "AssumeRolePolicyDocument", "Statement"))
	if len(trust) != 1 {
		t.Fatalf("trust policy %v, want one statement", trust)
	}
	st := trust[0].(map[string]any)
	if st["Effect"] != "Allow" || st["Action"] != "sts:AssumeRoleWithWebIdentity" {
		t.Errorf("trust statement %v", st)
	}
	cond, _ := st["Condition"].(map[string]any)
	if len(cond) != 1 || cond["StringEquals"] == nil {
		t.Fatalf("conditions %v, want StringEquals alone (no StringLike wildcards)", cond)
	}
	eq := cond["StringEquals"].(map[string]any)
	if eq["token.actions.githubusercontent.com:aud"] != "sts.amazonaws.com" {
		t.Errorf("aud condition %v, want sts.amazonaws.com", eq["token.actions.githubusercontent.com:aud"])
	}
	var subs []string
	for _, v := range asSlice(eq["token.actions.githubusercontent.com:sub"]) {
		s := fmt.Sprint(v.(map[string]any)["Fn::Sub"])
		subs = append(subs, strings.NewReplacer("${GitHubOwner}", "plantstore", "${GitHubRepo}", "plant-store").Replace(s))
	}
	allowed := func(sub string) bool { return slices.Contains(subs, sub) }
	for sub, want := range map[string]bool{
		"repo:plantstore/plant-store:ref:refs/heads/main":      true,
		"repo:plantstore/plant-store:environment:dev":          true,
		"repo:plantstore/plant-store:environment:prod":         true,
		"repo:plantstore/plant-store:ref:refs/heads/feature":   false,
		"repo:plantstore/plant-store:ref:refs/tags/v1":         false,
		"repo:plantstore/plant-store:pull_request":             false,
		"repo:plantstore/plant-store:environment:staging":      false,
		"repo:someone-else/plant-store:ref:refs/heads/main":    false,
		"repo:plantstore/plant-store-fork:ref:refs/heads/main": false,
	} {
		if allowed(sub) != want {
			t.Errorf("a token with sub %s: allowed %v, want %v", sub, allowed(sub), want)
		}
	}
	if fmt.Sprint(tpl.Get("Resources", "CloudFormationExecutionRole", "Properties", "AssumeRolePolicyDocument")) == "" {
		t.Error("no CloudFormation execution role")
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
