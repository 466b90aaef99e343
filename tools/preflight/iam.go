package preflight

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/plantstore/plantstore/internal/repotest"
)

// Question is one request put to the IAM evaluator: may Principal, holding
// IdentityPolicies within Boundaries, call Action on Resource with Context?
// A Trust question asks a role's trust policy (ResourcePolicy) instead.
type Question struct {
	ID               string         `json:"id"`
	Principal        string         `json:"principal"`
	Action           string         `json:"action"`
	Resource         string         `json:"resource"`
	Account          string         `json:"account"`
	Context          map[string]any `json:"context,omitempty"`
	IdentityPolicies []any          `json:"identityPolicies,omitempty"`
	Boundaries       []any          `json:"boundaries,omitempty"`
	ResourcePolicy   any            `json:"resourcePolicy,omitempty"`
	Trust            bool           `json:"trust,omitempty"`
}

// Answer is the evaluator's: Allowed, ImplicitlyDenied, ExplicitlyDenied, or
// Error (a policy the evaluator refuses to read, an unknown action).
// IgnoredContextKeys are context keys that do not apply to the action and
// resource by AWS's service reference, which IAM would not see either.
type Answer struct {
	ID                 string   `json:"id"`
	Result             string   `json:"result"`
	Error              string   `json:"error"`
	IgnoredContextKeys []string `json:"ignoredContextKeys"`
}

// Allowed says whether the answer is Allowed.
func (a Answer) Allowed() bool { return a.Result == "Allowed" }

// Ask puts the questions to @cloud-copilot/iam-simulate through node and
// iamsim.mjs (beside this file), in one process, and returns the answers in
// the questions' order. It needs node and the repository's npm packages
// (npm ci, which make test runs).
func Ask(questions []Question) ([]Answer, error) {
	for i := range questions {
		if questions[i].ID == "" {
			questions[i].ID = fmt.Sprint(i)
		}
	}
	// Large batches go to one evaluator per core: each answers a question in
	// a fraction of a millisecond, after about a second of start-up.
	parts := 1
	if len(questions) > 4000 {
		parts = runtime.NumCPU()
	}
	size := (len(questions) + parts - 1) / parts
	results := make([][]Answer, parts)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for i := range parts {
		lo, hi := min(i*size, len(questions)), min((i+1)*size, len(questions))
		wg.Go(func() { errs[i] = evaluate(questions[lo:hi], &results[i]) })
	}
	wg.Wait()
	var answers []Answer
	for i := range parts {
		if errs[i] != nil {
			return nil, errs[i]
		}
		answers = append(answers, results[i]...)
	}
	if len(answers) != len(questions) {
		return nil, fmt.Errorf("the IAM evaluator answered %d of %d questions", len(answers), len(questions))
	}
	for i, a := range answers {
		if a.ID != questions[i].ID {
			return nil, fmt.Errorf("answer %d is for %s, not %s", i, a.ID, questions[i].ID)
		}
	}
	return answers, nil
}

// evaluate runs iamsim.mjs on input (questions, or a data request) and
// decodes its answer into out.
func evaluate(input, out any) error {
	in, err := json.Marshal(input)
	if err != nil {
		return err
	}
	root, err := repotest.Root()
	if err != nil {
		return err
	}
	cmd := exec.Command("node", filepath.Join(root, "tools", "preflight", "iamsim.mjs"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("the IAM evaluator (node iamsim.mjs): %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("the IAM evaluator's answer: %v", err)
	}
	return nil
}

// actionInfo is an action as AWS's service reference describes it, from the
// evaluator's own copy.
type actionInfo struct {
	Name          string `json:"name"`
	AccessLevel   string `json:"accessLevel"`
	WildcardOnly  bool   `json:"wildcardOnly"`
	ResourceTypes []struct {
		Name     string `json:"name"`
		ARN      string `json:"arn"`
		Required bool   `json:"required"`
	} `json:"resourceTypes"`
}

// actionData lists every action of each service.
func actionData(services []string) (map[string][]actionInfo, error) {
	out := map[string][]actionInfo{}
	if len(services) == 0 {
		return out, nil
	}
	err := evaluate(map[string]any{"data": services}, &out)
	return out, err
}

// serviceKeys are the IAM prefixes of every service the evaluator knows.
func serviceKeys() ([]string, error) {
	var out []string
	err := evaluate(map[string]any{"data": "services"}, &out)
	return out, err
}

// Describe is a question in one line, for a failure message.
func (q Question) Describe() string {
	var ctx []string
	for k, v := range q.Context {
		ctx = append(ctx, fmt.Sprintf("%s=%v", k, v))
	}
	s := fmt.Sprintf("%s on %s", q.Action, q.Resource)
	if len(ctx) > 0 {
		s += " with " + strings.Join(ctx, ", ")
	}
	return s
}
