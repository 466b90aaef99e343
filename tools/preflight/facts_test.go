package preflight

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/rego"
)

// The facts a rule of the Makefile, .ci/run or the stacks reads are there,
// in the form facts*.go documents: asked here as a rule would ask them.
func TestFactsServeTheRulesToCome(t *testing.T) {
	t.Parallel()
	facts, err := Facts(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ what, query string }{
		{"a ?= pin of the Makefile, with its line", `some a in input.makefile.assignments; a.name == "STATICCHECK_VERSION"; a.op == "?="; a.line > 0`},
		{"the lint target's recipe runs bin/preflight, in the background", `some sc in input.scripts; sc.target == "lint"; some st in sc.stmts; st.words[0] == "bin/preflight"; st.background`},
		{"gosec's call in lint-go, through $(call clean-before,...) and its value's backslash-newlines", `some sc in input.scripts; sc.target == "lint-go"; some st in sc.stmts; endswith(st.words[0], "/.bin/gosec"); st.words[1] == "-quiet"`},
		{"the edge variant's cfn-lint call with EDGE_PARAMETERS", `some sc in input.scripts; sc.target == "lint-templates"; some st in sc.stmts; st.words[0] == "cfn-lint"; "--parameters" in st.words; "DeploymentType=AllAtOnce" in st.words`},
		{"an assignment whose name has a dash, its lines joined", `some a in input.makefile.assignments; a.name == "clean-before"; not contains(a.value, "\\\n")`},
		{"gosec guarded by its stamp's if, staticcheck unguarded, both as make lint runs them", `some r in input.gate.runs; r.target == "lint-go"; some g in r.commands; endswith(g.words[0], "/.bin/gosec"); startswith(g.guard, "script sha256:"); some s in r.commands; endswith(s.words[0], "/staticcheck"); s.guard == ""`},
		{"make fuzz's go test in its loop, unguarded", `some r in input.gate.runs; r.target == "fuzz"; some c in r.commands; c.words[0] == "go"; c.words[1] == "test"; count(c.loop) > 0; c.guard == ""`},
		{".ci/run's lines", `some l in input.files[".ci/run"].lines; contains(l, "make lint")`},
		{"the requirements pip installs", `count(input.files[".github/requirements.txt"].lines) > 0`},
		{"prod's table, resolved, on its line of template.yaml", `some s in input.stacks; s.variant == "prod"; not s.probe; r := s.resources.PlantsTable; r.type == "AWS::DynamoDB::Table"; r.line > 0; r.properties.BillingMode == "PAY_PER_REQUEST"`},
		{"dev's deploy role from pipeline/roles.yaml", `some s in input.stacks; s.variant == "dev"; s.file == "pipeline/roles.yaml"; s.resources.DeployRole.type == "AWS::IAM::Role"`},
	} {
		rs, err := rego.New(rego.Query(c.query), rego.Input(facts)).Eval(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if len(rs) == 0 {
			t.Errorf("the facts do not hold %s (%s)", c.what, c.query)
		}
	}
}

// Facts reads the repository at root into the rule book's input.
func Facts(root string) (map[string]any, error) {
	facts, _, err := readFacts(root)
	return facts, err
}

// A step's script is parsed once, as GitHub hands it to the shell, and
// every reader of it (the step's top-level calls, the checks job's
// commands, its statements) sees event data as the same expansion, never
// as a plain word; and none reads a part of a script that does not parse.
func TestAStepIsReadOneWay(t *testing.T) {
	t.Parallel()
	w, err := parseWorkflow("ci.yml", []byte("on: push\njobs:\n  ci:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.event.pull_request.title }}\n      - run: make test; if true\n"))
	if err != nil {
		t.Fatal(err)
	}
	const event = "${__event_data}"
	if calls := topCalls(w.Jobs["ci"].Steps[0]); len(calls) != 1 || len(calls[0]) != 2 || calls[0][1] != "\x00" {
		t.Errorf("the step's calls: %q, want echo and an expansion", calls)
	}
	root := t.TempDir()
	scripts := ciScripts(root, []*workflow{w}, nil, nil)
	gate := gateFacts(root, []*workflow{w}, nil, scripts)["scripts"].([]any)
	if got := gate[0].(map[string]any)["commands"].([]any)[0].(map[string]any)["words"].([]string); len(got) != 2 || got[1] != event {
		t.Errorf("the checks' command: %q, want echo %s", got, event)
	}
	if got := scripts[0].facts["stmts"].([]any)[0].(map[string]any)["words"].([]any); len(got) != 2 || got[1] != event {
		t.Errorf("the step's statement: %q, want echo %s", got, event)
	}
	if calls := topCalls(w.Jobs["ci"].Steps[1]); len(calls) != 0 {
		t.Errorf("the calls of a script that does not parse: %q, want none", calls)
	}
	if len(gate) != 1 {
		t.Errorf("%d checks' scripts, want only the one that parses", len(gate))
	}
	if bad := scripts[1].facts; bad["error"] == "" || len(bad["stmts"].([]any)) != 0 {
		t.Errorf("a script that does not parse: error %q, %d statements; want the parser's error and none", bad["error"], len(bad["stmts"].([]any)))
	}
}
