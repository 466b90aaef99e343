// Package iameval asks a real IAM policy evaluator,
// @cloud-copilot/iam-simulate (through node and iamsim.mjs beside this
// file), whether a principal may make a request, and what AWS's service
// reference says of a service's actions. The preflight's rules ask it many
// questions a run; its answers are kept in toolcache, and what is not kept
// goes to one node process per core. Test-time only: the evaluator is
// AGPL-3.0, a devDependency; nothing that ships links it.
package iameval

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/plantstore/plantstore/internal/srctree"

	"github.com/plantstore/plantstore/tools/toolcache"
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

// Ask puts the questions to @cloud-copilot/iam-simulate (through node and
// iamsim.mjs, beside this file) and returns the answers in the questions'
// order. It needs node and the repository's npm packages (npm ci, which make
// test runs).
//
// An answer depends on nothing but its question and the evaluator, so each
// is asked once: the answers are kept in the user's cache folder
// (toolcache), keyed by the sha256 of the question (every policy, request
// and context in it) inside a folder named by the evaluator's version (node's,
// iamsim.mjs's and its npm packages'); a question another caller is asking
// now is waited for. What is left goes to one node process per core, kept
// for the life of the test binary.
func Ask(questions []Question) ([]Answer, error) {
	ev, err := theEvaluator()
	if err != nil {
		return nil, err
	}
	return ev.ask(questions)
}

// evaluator is the processes and the answers of one test binary.
type evaluator struct {
	root    string
	cache   *toolcache.Cache
	jobs    chan evalJob
	workers int
	start   sync.Once // the workers start at the first question the cache lacks

	mu      sync.Mutex
	known   map[toolcache.Key][]byte        // answers (to questions and data requests), as the evaluator gave them
	parsed  map[toolcache.Key]Answer        // the answers to questions already read: a copy asks thousands again
	pending map[toolcache.Key]chan struct{} // closed when the key is known
	failed  error                           // a worker's failure, for every later question
}

// wireRequest is one line of questions for iamsim.mjs, with the policies
// they name by digest.
type wireRequest struct {
	Policies  map[string]json.RawMessage `json:"policies"`
	Questions []wireQuestion             `json:"questions"`
}

// evalJob is one line for a worker: a request, and where its answer goes.
type evalJob struct {
	request any
	out     any
	done    chan error
}

// chunk is how many questions go to a worker in one line: small enough to
// spread a batch over the workers, large enough that a line is cheap.
const chunk = 400

var theEvaluator = sync.OnceValues(func() (*evaluator, error) {
	root, err := srctree.Root()
	if err != nil {
		return nil, err
	}
	cache, err := theCache()
	if err != nil {
		return nil, err
	}
	return newEvaluator(root, cache, runtime.NumCPU())
})

// theCache is the evaluator's cache at its version, opened once.
var theCache = sync.OnceValues(func() (*toolcache.Cache, error) {
	root, err := srctree.Root()
	if err != nil {
		return nil, err
	}
	version, err := evaluatorVersion(root)
	if err != nil {
		return nil, err
	}
	return toolcache.Open("", "iam-evaluator", version...)
})

// newEvaluator answers for the repository at root from what cache holds,
// and the rest from workers node processes, started when first needed.
func newEvaluator(root string, cache *toolcache.Cache, workers int) (*evaluator, error) {
	known, err := cache.Load()
	if err != nil {
		return nil, err
	}
	return &evaluator{root: root, cache: cache, jobs: make(chan evalJob), workers: workers, known: known, parsed: map[toolcache.Key]Answer{}, pending: map[toolcache.Key]chan struct{}{}}, nil
}

// encoder gives questions their keys and wire form. A role's policies are
// shared by many of its questions: each distinct policy list is
// encoded (and hashed) once per call, found by the list's identity, which
// cannot change while the caller waits for its answers. A policy's digest
// is the sha256 of its encoding, so the key, the sha256 of the wire form
// that names policies by digest, is a function of the question's whole
// content, and no policy is hashed again for each question that holds it.
type encoder struct {
	seen     map[policyRef]string       // a policy list or document -> its digest
	policies map[string]json.RawMessage // digest -> encoding
	buf      []byte                     // a key's input, reused
	keys     []string                   // a context's keys, reused
}

// policyRef is a policy list's identity: its backing array and length, or
// a document map's pointer.
type policyRef struct {
	ptr uintptr
	n   int
}

func newEncoder() *encoder {
	return &encoder{seen: map[policyRef]string{}, policies: map[string]json.RawMessage{}}
}

// digest encodes v (a list of documents, or one document) once.
func (e *encoder) digest(v any) (string, error) {
	if v == nil {
		return "", nil
	}
	rv := reflect.ValueOf(v)
	var ref policyRef
	switch rv.Kind() {
	case reflect.Slice:
		if rv.Len() == 0 {
			return "", nil
		}
		ref = policyRef{rv.Pointer(), rv.Len()}
	case reflect.Map:
		ref = policyRef{rv.Pointer(), -1}
	}
	if d, ok := e.seen[ref]; ok && ref.ptr != 0 {
		return d, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(raw)
	d := hex.EncodeToString(sum[:])
	e.policies[d] = raw
	if ref.ptr != 0 {
		e.seen[ref] = d
	}
	return d, nil
}

// wireQuestion is a question as iamsim.mjs reads it: its policies by digest.
type wireQuestion struct {
	Principal        string         `json:"principal"`
	Action           string         `json:"action"`
	Resource         string         `json:"resource"`
	Account          string         `json:"account"`
	Context          map[string]any `json:"context,omitempty"`
	IdentityPolicies string         `json:"identityPolicies,omitempty"`
	Boundaries       string         `json:"boundaries,omitempty"`
	ResourcePolicy   string         `json:"resourcePolicy,omitempty"`
	Trust            bool           `json:"trust,omitempty"`
}

// encode returns the question's wire form and the key of its answer. The
// key is the sha256 of the wire form's fields, each with its length, the
// context's keys in order: json.Marshal of the whole form, for every one of
// a run's hundreds of thousands of questions, was most of the preflight's
// time in the evaluator.
func (e *encoder) encode(q Question) (wireQuestion, toolcache.Key, error) {
	w := wireQuestion{Principal: q.Principal, Action: q.Action, Resource: q.Resource, Account: q.Account, Context: q.Context, Trust: q.Trust}
	var err error
	if w.IdentityPolicies, err = e.digest(q.IdentityPolicies); err != nil {
		return w, toolcache.Key{}, err
	}
	if w.Boundaries, err = e.digest(q.Boundaries); err != nil {
		return w, toolcache.Key{}, err
	}
	if w.ResourcePolicy, err = e.digest(q.ResourcePolicy); err != nil {
		return w, toolcache.Key{}, err
	}
	e.buf = e.buf[:0]
	field := func(b ...string) {
		for _, s := range b {
			e.buf = binary.BigEndian.AppendUint64(e.buf, uint64(len(s)))
			e.buf = append(e.buf, s...)
		}
	}
	field("question/2", w.Principal, w.Action, w.Resource, w.Account, w.IdentityPolicies, w.Boundaries, w.ResourcePolicy, strconv.FormatBool(w.Trust))
	e.keys = e.keys[:0]
	for k := range w.Context {
		e.keys = append(e.keys, k)
	}
	slices.Sort(e.keys)
	for _, k := range e.keys {
		if v, ok := w.Context[k].(string); ok {
			field(k, "s"+v)
			continue
		}
		j, err := json.Marshal(w.Context[k])
		if err != nil {
			return w, toolcache.Key{}, err
		}
		field(k, "j"+string(j))
	}
	return w, sha256.Sum256(e.buf), nil
}

// keyOf is the key of one question's answer: all of it but its ID.
func keyOf(q Question) (toolcache.Key, error) {
	_, k, err := newEncoder().encode(q)
	return k, err
}

// Version names the evaluator's version (node, iamsim.mjs, the
// @cloud-copilot packages and AWS's service reference they hold) as its
// cache does: "" when caching is off.
func Version() (string, error) {
	c, err := theCache()
	if err != nil || c.Dir() == "" {
		return "", err
	}
	return filepath.Base(c.Dir()), nil
}

// evaluatorVersion is what an answer depends on beside its question: node,
// iamsim.mjs and every package of @cloud-copilot as installed (iam-data's
// version is the date of AWS's service reference it holds).
func evaluatorVersion(root string) ([][]byte, error) {
	node, err := exec.Command("node", "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("the IAM evaluator needs node: %v", err)
	}
	script, err := os.ReadFile(filepath.Join(root, "tools", "iameval", "iamsim.mjs"))
	if err != nil {
		return nil, err
	}
	version := [][]byte{node, script}
	pkgs, _ := filepath.Glob(filepath.Join(root, "node_modules", "@cloud-copilot", "*", "package.json"))
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("the IAM evaluator is not installed: no node_modules/@cloud-copilot (npm ci, which make test runs)")
	}
	for _, p := range pkgs {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		version = append(version, []byte(filepath.Base(filepath.Dir(p))), raw)
	}
	return version, nil
}

// work is one node process, answering jobs until the test binary ends (its
// stdin closes then, and node exits). After a failed round trip node is
// stopped, so that its stderr, which the error quotes, is whole.
func (ev *evaluator) work() {
	cmd := exec.Command("node", filepath.Join(ev.root, "tools", "iameval", "iamsim.mjs"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	var out io.ReadCloser
	if err == nil {
		out, err = cmd.StdoutPipe()
	}
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		err = fmt.Errorf("the IAM evaluator (node iamsim.mjs): %v", err)
	}
	answers := bufio.NewReader(out)
	for j := range ev.jobs {
		if err == nil {
			if err = roundTrip(in, answers, j); err != nil {
				_ = cmd.Process.Kill()
				_ = cmd.Wait() // after Wait, stderr holds all node wrote
				err = fmt.Errorf("the IAM evaluator (node iamsim.mjs): %v\n%s", err, stderr.String())
			}
		}
		j.done <- err
	}
}

// roundTrip writes the job's request as one line and reads its answer line.
func roundTrip(in io.Writer, answers *bufio.Reader, j evalJob) error {
	line, err := json.Marshal(j.request)
	if err != nil {
		return err
	}
	if _, err := in.Write(append(line, '\n')); err != nil {
		return err
	}
	raw, err := answers.ReadBytes('\n')
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, j.out); err != nil {
		return fmt.Errorf("its answer: %v", err)
	}
	return nil
}

// do hands one request to a free worker and waits for its answer.
func (ev *evaluator) do(request, out any) error {
	ev.start.Do(func() {
		for range ev.workers {
			go ev.work()
		}
	})
	j := evalJob{request, out, make(chan error, 1)}
	ev.jobs <- j
	return <-j.done
}

// ask answers the questions: known ones from what is kept, the rest from
// the workers, each new question asked once however many callers ask it.
func (ev *evaluator) ask(questions []Question) ([]Answer, error) {
	enc := newEncoder()
	keys := make([]toolcache.Key, len(questions))
	wire := make([]wireQuestion, len(questions))
	for i, q := range questions {
		var err error
		if wire[i], keys[i], err = enc.encode(q); err != nil {
			return nil, err
		}
	}
	var mine []int // the questions this call asks
	var waits []chan struct{}
	ev.mu.Lock()
	if ev.failed != nil {
		ev.mu.Unlock()
		return nil, ev.failed
	}
	for i, k := range keys {
		if _, ok := ev.known[k]; ok {
			continue
		}
		if w, ok := ev.pending[k]; ok {
			waits = append(waits, w)
			continue
		}
		ev.pending[k] = make(chan struct{})
		mine = append(mine, i)
	}
	ev.mu.Unlock()

	// Chunks side by side, one per worker at a time.
	parts := (len(mine) + chunk - 1) / chunk
	results := make([][]json.RawMessage, parts)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		batch := mine[p*chunk : min((p+1)*chunk, len(mine))]
		wg.Go(func() {
			req := wireRequest{Policies: map[string]json.RawMessage{}}
			for _, b := range batch {
				w := wire[b]
				req.Questions = append(req.Questions, w)
				for _, d := range []string{w.IdentityPolicies, w.Boundaries, w.ResourcePolicy} {
					if d != "" {
						req.Policies[d] = enc.policies[d]
					}
				}
			}
			errs[p] = ev.do(req, &results[p])
			if errs[p] == nil && len(results[p]) != len(batch) {
				errs[p] = fmt.Errorf("the IAM evaluator answered %d of %d questions", len(results[p]), len(batch))
			}
		})
	}
	wg.Wait()
	fresh := map[toolcache.Key][]byte{}
	ev.mu.Lock()
	for p := range parts {
		if errs[p] != nil && ev.failed == nil {
			ev.failed = errs[p]
		}
		for i, raw := range results[p] {
			if errs[p] == nil {
				k := keys[mine[p*chunk+i]]
				ev.known[k] = raw
				fresh[k] = raw
			}
		}
	}
	for _, i := range mine {
		close(ev.pending[keys[i]])
		delete(ev.pending, keys[i])
	}
	failed := ev.failed
	ev.mu.Unlock()
	if failed != nil {
		return nil, failed
	}
	if err := ev.cache.Append(fresh); err != nil {
		return nil, err
	}
	for _, w := range waits {
		<-w
	}

	answers := make([]Answer, len(questions))
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if ev.failed != nil {
		return nil, ev.failed
	}
	for i, k := range keys {
		a, ok := ev.parsed[k]
		if !ok {
			if err := json.Unmarshal(ev.known[k], &a); err != nil {
				return nil, fmt.Errorf("the IAM evaluator's answer to %s: %v", questions[i].Describe(), err)
			}
			ev.parsed[k] = a
		}
		answers[i] = a
		answers[i].IgnoredContextKeys = slices.Clone(a.IgnoredContextKeys)
		answers[i].ID = questions[i].ID
		if answers[i].ID == "" {
			answers[i].ID = fmt.Sprint(i)
		}
	}
	return answers, nil
}

// evaluate puts a data request to the evaluator once per version: its
// answer is kept with the answers to questions, in memory and in the logs.
func evaluate(request, out any) error {
	ev, err := theEvaluator()
	if err != nil {
		return err
	}
	raw, err := json.Marshal(request)
	if err != nil {
		return err
	}
	k := toolcache.KeyOf([]byte("data"), raw)
	ev.mu.Lock()
	answer, ok := ev.known[k]
	ev.mu.Unlock()
	if !ok {
		var fresh json.RawMessage
		if err := ev.do(request, &fresh); err != nil {
			return err
		}
		if err := ev.cache.Append(map[toolcache.Key][]byte{k: fresh}); err != nil {
			return err
		}
		ev.mu.Lock()
		ev.known[k] = fresh
		ev.mu.Unlock()
		answer = fresh
	}
	return json.Unmarshal(answer, out)
}

// Action is an action as AWS's service reference describes it, from the
// evaluator's own copy.
type Action struct {
	Name          string `json:"name"`
	AccessLevel   string `json:"accessLevel"`
	WildcardOnly  bool   `json:"wildcardOnly"`
	ResourceTypes []struct {
		Name     string `json:"name"`
		ARN      string `json:"arn"`
		Required bool   `json:"required"`
	} `json:"resourceTypes"`
}

// Actions lists every action of each service.
func Actions(services []string) (map[string][]Action, error) {
	out := map[string][]Action{}
	if len(services) == 0 {
		return out, nil
	}
	err := evaluate(map[string]any{"data": services}, &out)
	return out, err
}

// Services are the IAM prefixes of every service the evaluator knows.
func Services() ([]string, error) {
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
