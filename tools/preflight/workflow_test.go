package preflight

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/tools/samtemplate"
	"gopkg.in/yaml.v3"
)

var repoRoot = filepath.Join("..", "..")

type workflow struct {
	file string
	On   yaml.Node      `yaml:"on"`
	Jobs map[string]job `yaml:"jobs"`
}

type job struct {
	name        string
	Uses        string            `yaml:"uses"`
	Needs       any               `yaml:"needs"`
	If          string            `yaml:"if"`
	Environment any               `yaml:"environment"`
	Permissions map[string]string `yaml:"permissions"`
	Steps       []step            `yaml:"steps"`
}

type step struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

func (s step) name() string {
	if s.Name != "" {
		return s.Name
	}
	if s.Uses != "" {
		return s.Uses
	}
	return s.Run
}

// matches says whether a step is the one a test names: by its action
// (owner/repo, any version) or by the text of its name or script.
func (s step) matches(what string) bool {
	if strings.Contains(what, "/") {
		action, _, _ := strings.Cut(s.Uses, "@")
		return action == what
	}
	return strings.Contains(s.Name, what) || strings.Contains(s.Run, what)
}

func loadWorkflow(t *testing.T, name string) workflow {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, ".github", "workflows", name))
	if err != nil {
		t.Fatal(err)
	}
	wf := workflow{file: name}
	if err := yaml.Unmarshal(raw, &wf); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return wf
}

func (w workflow) job(t *testing.T, name string) job {
	t.Helper()
	j, ok := w.Jobs[name]
	if !ok {
		t.Fatalf("%s has no job %s", w.file, name)
	}
	j.name = name
	return j
}

func (j job) step(t *testing.T, what string) step {
	t.Helper()
	for _, s := range j.Steps {
		if s.matches(what) {
			return s
		}
	}
	t.Fatalf("job %s has no step %s", j.name, what)
	return step{}
}

// stepsBetween are the steps after the one that matches from and before the
// one that matches to.
func (j job) stepsBetween(t *testing.T, from, to string) []step {
	t.Helper()
	start, end := -1, -1
	for i, s := range j.Steps {
		if start < 0 && s.matches(from) {
			start = i
		} else if start >= 0 && s.matches(to) {
			end = i
			break
		}
	}
	if start < 0 || end < 0 {
		t.Fatalf("job %s: no step %q followed by a step %q", j.name, from, to)
	}
	return j.Steps[start+1 : end]
}

// needs lists the jobs a job waits for.
func (j job) needs() []string {
	switch n := j.Needs.(type) {
	case string:
		return []string{n}
	case []any:
		var out []string
		for _, e := range n {
			out = append(out, e.(string))
		}
		return out
	}
	return nil
}

func templateFunctions(t *testing.T) []string {
	t.Helper()
	tpl, err := samtemplate.Load(filepath.Join(repoRoot, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	fns := tpl.Functions()
	if len(fns) == 0 {
		t.Fatal("template.yaml has no functions")
	}
	return fns
}

// Nothing deploys a commit whose checks failed: every job of deploy.yml that
// deploys (names an environment) waits, through its needs, for a job that
// runs ci.yml, and none on the way runs whatever came before. GitHub's rule:
// a job whose needed job failed is skipped unless its `if` asks for always(),
// failure() or !cancelled() (workflow syntax, jobs.<job_id>.needs).
func TestDeploysWaitForTheChecks(t *testing.T) {
	t.Parallel()
	wf := loadWorkflow(t, "deploy.yml")
	ci := loadWorkflow(t, "ci.yml")
	var on map[string]any
	if err := ci.On.Decode(&on); err != nil {
		t.Fatal(err)
	}
	if _, ok := on["workflow_call"]; !ok {
		t.Errorf("ci.yml cannot be called by deploy.yml: it has no workflow_call trigger")
	}
	deploys := 0
	for name, j := range wf.Jobs {
		if j.Environment == nil {
			continue
		}
		deploys++
		if !waitsForCI(wf, name, map[string]bool{}) {
			t.Errorf("deploy.yml job %s deploys without waiting for ci.yml's checks to pass", name)
		}
	}
	if deploys < 2 {
		t.Errorf("deploy.yml has %d jobs with an environment, want dev and prod", deploys)
	}
}

func waitsForCI(wf workflow, name string, seen map[string]bool) bool {
	if seen[name] {
		return false
	}
	seen[name] = true
	j := wf.Jobs[name]
	if strings.Contains(j.If, "always()") || strings.Contains(j.If, "failure()") || strings.Contains(j.If, "cancelled()") {
		return false
	}
	if strings.TrimPrefix(j.Uses, "./") == ".github/workflows/ci.yml" {
		return true
	}
	for _, n := range j.needs() {
		if waitsForCI(wf, n, seen) {
			return true
		}
	}
	return false
}
