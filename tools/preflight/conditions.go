package preflight

// The rule of conditions: a policy's Condition decides who its principal is
// as much as its Principal does. A trust or resource policy whose Principal
// is '*' or an account can admit an organization, every role whose name
// begins like ours, every account that sends no key at all, through its
// condition keys. So every trust policy and every resource policy is asked,
// besides the outsiders the trust rule names, by neighbours of every kind
// its condition keys could match, each a caller with the request context IAM
// would give it:
//
//   - what IAM sets from who the caller is, which no caller chooses
//     (aws:PrincipalArn, aws:PrincipalAccount, aws:PrincipalType,
//     aws:PrincipalIsAWSService, aws:PrincipalServiceName; identityOf);
//   - for every other key the policy names that the caller may bring
//     (free): every value the policy names, with each wildcard filled by a
//     name that only begins like ours and an account's by another account;
//     a value of another account or organization; and no value at all,
//     which ...IfExists, Null and ForAllValues admit where other operators
//     do not ("AWS global condition context keys": most keys are present
//     only in some requests; "IAM JSON policy elements: Condition
//     operators": a missing key makes a condition false, except for
//     ...IfExists, Null and the negated operators).
//
// aws:SourceArn, aws:SourceAccount and the organization keys of a source
// are a service's to send, on behalf of whichever resource of whichever
// account uses it; the principal's organization and tags are its account's
// to choose; a web identity's claims its provider's. Principals the policy
// names itself (in Principal, aws:PrincipalArn, aws:PrincipalAccount) ask too.
//
// Sources: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html
// and https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html.
//
// The questions come in two rounds, so that their number stays small: each
// caller asks the policy with its conditions and Deny statements removed
// and every action and resource allowed (relaxed, which admits whatever
// the policy could admit under some context); only the callers it admits
// ask the policy itself, for every action and every context.

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/plantstore/plantstore/tools/iameval"
)

// actorKind is the kind of caller, which decides the keys it brings itself.
type actorKind int

const (
	iamCaller     actorKind = iota // an account's root, a user, a role or its session
	serviceCaller                  // an AWS service principal
	webCaller                      // a user of an OIDC or SAML provider
)

// actor is a caller: a principal with the policies it holds and the keys
// IAM sets from its identity.
type actor struct {
	principal string
	kind      actorKind
	account   string // an IAM caller's account
	named     bool   // the policy names it, in Principal or a principal key
	as        string // the principal the policy names, where the caller stands for it (an account's role for its root)
	anyone    bool   // a service that stands for every service the policy does not name
	identity  []any
	context   map[string]any
}

// webProviders are the web identity providers that are not IAM providers
// of an account.
var webProviders = map[string]bool{"cognito-identity.amazonaws.com": true, "accounts.google.com": true, "graph.facebook.com": true, "www.amazon.com": true}

// identityOf is a caller as IAM sees it: the keys it sets from the
// principal alone.
func identityOf(principal string) actor {
	a := actor{principal: principal, context: map[string]any{}}
	switch {
	case strings.Contains(principal, ":oidc-provider/"), strings.Contains(principal, ":saml-provider/"), webProviders[principal]:
		a.kind = webCaller
	case !strings.HasPrefix(principal, "arn:"):
		a.kind = serviceCaller
		a.context["aws:PrincipalIsAWSService"] = "true"
		a.context["aws:PrincipalServiceName"] = principal
	default:
		a.kind = iamCaller
		parts := strings.SplitN(principal, ":", 6)
		if len(parts) < 6 {
			return a
		}
		a.account = parts[4]
		arn, typ := principal, "Account"
		switch res := parts[5]; {
		case strings.HasPrefix(res, "assumed-role/"):
			role, _, _ := strings.Cut(strings.TrimPrefix(res, "assumed-role/"), "/")
			arn, typ = fmt.Sprintf("arn:%s:iam::%s:role/%s", parts[1], a.account, role), "AssumedRole"
		case strings.HasPrefix(res, "role/"):
			typ = "AssumedRole"
		case strings.HasPrefix(res, "user/"):
			typ = "User"
			a.context["aws:username"] = res[strings.LastIndex(res, "/")+1:]
		}
		a.context["aws:PrincipalArn"] = arn
		a.context["aws:PrincipalAccount"] = a.account
		a.context["aws:PrincipalType"] = typ
		a.context["aws:PrincipalIsAWSService"] = "false"
	}
	return a
}

// provider is the host whose claims a web caller's token carries.
func (a actor) provider() string {
	if _, host, ok := strings.Cut(a.principal, "-provider/"); ok {
		return host
	}
	return a.principal
}

// Keys IAM sets from the caller's identity; keys only a service sends, on
// behalf of a resource.
var (
	identityKeys = map[string]bool{"aws:principalarn": true, "aws:principalaccount": true, "aws:principaltype": true, "aws:principalisawsservice": true,
		"aws:principalservicename": true, "aws:principalservicenameslist": true, "aws:userid": true, "aws:username": true, "aws:federatedprovider": true}
	sourceKeys = map[string]bool{"aws:sourcearn": true, "aws:sourceaccount": true, "aws:sourceorgid": true, "aws:sourceorgpaths": true, "aws:sourceowner": true}
)

// free says whether the caller brings the key itself, with any value.
func (a actor) free(key string) bool {
	k := strings.ToLower(key)
	prefix, _, _ := strings.Cut(k, ":")
	switch {
	case identityKeys[k]:
		return false
	case sourceKeys[k]:
		return a.kind == serviceCaller
	case strings.HasPrefix(k, "aws:principal"), strings.HasPrefix(k, "aws:sourceidentity"):
		return a.kind == iamCaller
	case strings.Contains(prefix, "."): // a web identity's claim: <provider host>:<claim>
		return a.kind == webCaller && strings.EqualFold(prefix, a.provider())
	case prefix == "saml":
		return a.kind == webCaller && strings.Contains(a.principal, ":saml-provider/")
	}
	return true
}

// condition is one key of one condition operator of a statement.
type condition struct {
	op, key string
	values  []string
}

// policyDoc is a policy document as a map: some resources carry it as a
// JSON string.
func policyDoc(v any) map[string]any {
	if s, ok := v.(string); ok {
		var m map[string]any
		_ = json.Unmarshal([]byte(s), &m)
		return m
	}
	m, _ := v.(map[string]any)
	return m
}

func statementsOf(doc any) []map[string]any {
	var out []map[string]any
	for _, st := range asList(policyDoc(doc)["Statement"]) {
		if m, ok := st.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// conditionsOf lists the policy's conditions, in a stable order.
func conditionsOf(doc any) []condition {
	var out []condition
	for _, st := range statementsOf(doc) {
		ops, _ := st["Condition"].(map[string]any)
		for op, keys := range ops {
			keys, _ := keys.(map[string]any)
			for k, v := range keys {
				c := condition{op: op, key: k}
				for _, x := range asList(v) {
					c.values = append(c.values, fmt.Sprint(x))
				}
				out = append(out, c)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key+out[i].op < out[j].key+out[j].op })
	return out
}

// baseOperator is the operator without its set prefix and IfExists.
func baseOperator(op string) string {
	if _, after, ok := strings.Cut(op, ":"); ok {
		op = after
	}
	return strings.TrimSuffix(op, "IfExists")
}

// neighbourName fills a wildcard: a name that only begins (or ends) like
// the one the policy means.
const neighbourName = "x-neighbour"

// fill is a value the pattern matches that is nobody's we know: each
// wildcard filled with neighbourName, an ARN's wildcard account with another
// account and its wildcard partition and region with ours.
func fill(v string) string {
	wild := func(s string) string {
		return strings.NewReplacer("*", neighbourName, "?", "x").Replace(s)
	}
	parts := strings.SplitN(v, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" {
		return wild(v)
	}
	for i, mine := range map[int]string{1: partition, 3: region, 4: otherAccount} {
		if strings.ContainsAny(parts[i], "*?") {
			parts[i] = mine
		}
	}
	parts[2], parts[5] = wild(parts[2]), wild(parts[5])
	return strings.Join(parts, ":")
}

// inAccount is an ARN moved to another account, when it names one.
func inAccount(v, acct string) string {
	parts := strings.SplitN(v, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[4] == "" {
		return v
	}
	parts[4] = acct
	return strings.Join(parts, ":")
}

// neighbourValue is a value of the key that belongs to nobody we know.
func neighbourValue(key string) string {
	switch k := strings.ToLower(key); {
	case strings.HasSuffix(k, "account"), k == "aws:sourceowner":
		return otherAccount
	case strings.HasSuffix(k, "orgid"):
		return "o-neighbour00"
	case strings.HasSuffix(k, "orgpaths"):
		return "o-neighbour00/r-ab12/ou-ab12-neighbour/"
	case strings.HasSuffix(k, "arn"):
		return "arn:" + partition + ":iam::" + otherAccount + ":role/" + neighbourName
	}
	return neighbourName
}

// multivalued are keys whose value is a list.
var multivalued = map[string]bool{"aws:principalorgpaths": true, "aws:sourceorgpaths": true, "aws:calledvia": true, "aws:tagkeys": true, "aws:principalservicenameslist": true}

// candidates are the values a caller tries for a key: the intended value,
// each value the policy names (filled, and in another account), a value of
// nobody we know, and none (nil).
func candidates(conds []condition, key string, intended map[string]any) []any {
	var out []any
	seen := map[string]bool{}
	add := func(v string) {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	if v, ok := intended[key]; ok {
		add(fmt.Sprint(v))
	}
	for _, c := range conds {
		if !strings.EqualFold(c.key, key) {
			continue
		}
		for _, v := range c.values {
			if strings.Contains(v, "${") { // a policy variable: the caller's own value
				continue
			}
			switch op := baseOperator(c.op); {
			case op == "Null": // its values say whether the key is present, which the candidates cover
			case strings.HasPrefix(op, "String"), strings.HasPrefix(op, "Arn"):
				add(fill(v))
				add(inAccount(fill(v), otherAccount))
			case strings.Contains(op, "IpAddress"):
				ip, _, _ := strings.Cut(v, "/")
				add(ip)
				add("203.0.113.7")
			case op == "Bool":
				add("true")
				add("false")
			case strings.HasPrefix(op, "Numeric"):
				add(v)
				if n, err := strconv.ParseFloat(v, 64); err == nil {
					add(strconv.FormatFloat(n+1, 'f', -1, 64))
					add(strconv.FormatFloat(n-1, 'f', -1, 64))
				}
			case strings.HasPrefix(op, "Date"): // an ISO 8601 date and time, or epoch seconds
				add(v)
				for _, layout := range []string{time.RFC3339, "2006-01-02"} {
					if t, err := time.Parse(layout, v); err == nil {
						add(t.Add(time.Second).UTC().Format(time.RFC3339))
						add(t.Add(-time.Second).UTC().Format(time.RFC3339))
					}
				}
				if n, err := strconv.ParseInt(v, 10, 64); err == nil {
					add(strconv.FormatInt(n+1, 10))
					add(strconv.FormatInt(n-1, 10))
				}
			default:
				add(v)
			}
		}
	}
	add(neighbourValue(key))
	if multivalued[strings.ToLower(key)] {
		for i, v := range out {
			out[i] = []any{v}
		}
	}
	return append(out, nil)
}

// maxContexts bounds the contexts one caller tries: past it, each key is
// varied alone from the first candidates.
const maxContexts = 64

// contextsOf are the contexts a caller tries against the policy's
// conditions: its identity, with every combination of the candidates of
// the keys it brings.
func contextsOf(a actor, conds []condition, intended map[string]any) []map[string]any {
	return combine(a.context, a.keysOf(conds), conds, intended)
}

// keysOf are the keys of the conditions the caller brings itself, in their
// order, each once whatever its case.
func (a actor) keysOf(conds []condition) []string {
	var keys []string
	seen := map[string]bool{}
	for _, c := range conds {
		if k := c.key; !seen[strings.ToLower(k)] && a.free(k) {
			seen[strings.ToLower(k)] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// combine is base with every combination of the candidates of keys.
func combine(base map[string]any, keys []string, conds []condition, intended map[string]any) []map[string]any {
	cands := make([][]any, len(keys))
	total := 1
	for i, k := range keys {
		cands[i] = candidates(conds, k, intended)
		total *= len(cands[i])
	}
	with := func(pick []int) map[string]any {
		ctx := maps.Clone(base)
		for i, k := range keys {
			if v := cands[i][pick[i]]; v != nil {
				ctx[k] = v
			}
		}
		return ctx
	}
	var out []map[string]any
	pick := make([]int, len(keys))
	if total <= maxContexts {
		for {
			out = append(out, with(pick))
			i := 0
			for ; i < len(pick); i++ {
				if pick[i]++; pick[i] < len(cands[i]) {
					break
				}
				pick[i] = 0
			}
			if i == len(pick) {
				return out
			}
		}
	}
	out = append(out, with(pick))
	for i := range keys {
		for j := 1; j < len(cands[i]); j++ {
			p := make([]int, len(keys))
			p[i] = j
			out = append(out, with(p))
		}
	}
	return out
}

// The rule of conditions holds for a role's own policies too: a statement
// whose Condition names a key the reach questions do not set
// (aws:RequestedRegion, aws:PrincipalTag/..., aws:ResourceTag/... of a
// resource whose template sets no such tag, aws:CalledVia, aws:RequestTag/...,
// aws:SourceIp, aws:CurrentTime...) is denied for want of the key, though
// most such keys are the caller's to send, or a tag anyone who may tag can
// set ("AWS global condition context keys",
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html:
// aws:RequestedRegion is the region the caller calls, aws:CalledVia the
// services it calls through, aws:PrincipalTag the tags of its own role).
// So `sqs:*` on `*` "only in our region" allows every queue of every
// stack. hiddenGrants asks again, in two rounds as for trust: the denied
// questions of every subject whose policies have conditions, with the
// conditions taken away (unconditioned); those that allows, in every
// context the keys its conditions name could bring, beside the keys IAM
// sets from who the role is.
func hiddenGrants(qs []iameval.Question, about []accessQuestion, answers []iameval.Answer) ([]iameval.Question, []accessQuestion, error) {
	type relaxation struct {
		identity, boundaries []any
		conds                []condition
	}
	relax := map[*subject]*relaxation{}
	var asked []iameval.Question
	var at []int
	for i, ans := range answers {
		if ans.Allowed() || ans.Result == "Error" {
			continue
		}
		s := about[i].subject
		r := relax[s]
		if r == nil {
			r = &relaxation{unconditioned(s.identity), unconditioned(s.boundaries), conditionsOf(map[string]any{"Statement": statementsOfAll(slices.Concat(s.identity, s.boundaries))})}
			relax[s] = r
		}
		if len(r.conds) == 0 {
			continue
		}
		q := qs[i]
		q.IdentityPolicies, q.Boundaries = r.identity, r.boundaries
		asked = append(asked, q)
		at = append(at, i)
	}
	relaxed, err := iameval.Ask(asked)
	if err != nil {
		return nil, nil, err
	}
	var out []iameval.Question
	var outAbout []accessQuestion
	for n, ans := range relaxed {
		if !ans.Allowed() {
			continue
		}
		i := at[n]
		s := about[i].subject
		caller := identityOf(s.arn)
		base := withIdentity(s.arn, qs[i].Context)
		var keys []string
		for _, c := range relax[s].conds {
			if _, set := lookup(base, c.key); !set && caller.free(c.key) && !slices.ContainsFunc(keys, func(k string) bool { return strings.EqualFold(k, c.key) }) {
				keys = append(keys, c.key)
			}
		}
		for _, ctx := range combine(base, keys, relax[s].conds, nil) {
			q := qs[i]
			q.Context = ctx
			a := about[i]
			a.when = brought(keys, ctx)
			out = append(out, q)
			outAbout = append(outAbout, a)
		}
	}
	return out, outAbout, nil
}

// unconditioned is the policies without what a context could change: each
// Allow without its Condition, and no Deny that has one. It allows every
// request the policies allow in some context.
func unconditioned(docs []any) []any {
	var out []any
	for _, doc := range docs {
		sts := []any{}
		for _, st := range statementsOf(doc) {
			if st["Condition"] != nil && st["Effect"] != "Allow" {
				continue
			}
			c := maps.Clone(st)
			delete(c, "Condition")
			sts = append(sts, c)
		}
		out = append(out, map[string]any{"Version": "2012-10-17", "Statement": sts})
	}
	return out
}

func statementsOfAll(docs []any) []any {
	var out []any
	for _, doc := range docs {
		for _, st := range statementsOf(doc) {
			out = append(out, st)
		}
	}
	return out
}

// brought tells the keys a context sets, or leaves out:
// "aws:RequestedRegion=eu-west-1, no aws:CalledVia".
func brought(keys []string, ctx map[string]any) string {
	var parts []string
	for _, k := range keys {
		if v, ok := ctx[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%v", k, v))
		} else {
			parts = append(parts, "no "+k)
		}
	}
	return strings.Join(parts, ", ")
}

// allowConditions are the conditions of the policy's Allow statements:
// only they can admit anyone.
func allowConditions(doc any) []condition {
	var allows []any
	for _, st := range statementsOf(doc) {
		if st["Effect"] == "Allow" {
			allows = append(allows, st)
		}
	}
	return conditionsOf(map[string]any{"Statement": allows})
}

// chosen tells the keys of the policy's Allow statements a request's
// caller brought, or left out: "aws:PrincipalOrgID=o-a1b2c3d4e5, no
// aws:SourceArn".
func chosen(a actor, doc any, ctx map[string]any) string {
	return brought(a.keysOf(allowConditions(doc)), ctx)
}

// namedPrincipals are the principals a policy names: in Principal, and in
// the values of aws:PrincipalArn, aws:PrincipalAccount and
// aws:PrincipalServiceName, each wildcard filled. An account stands for its
// root and a role of it.
func namedPrincipals(doc any) map[string]string {
	out := map[string]string{} // principal -> the principal the policy names
	account := func(acct string) {
		root := fmt.Sprintf("arn:%s:iam::%s:root", partition, acct)
		out[root] = root
		out[fmt.Sprintf("arn:%s:iam::%s:role/%s", partition, acct, neighbourName)] = root
	}
	aws := func(v string) {
		switch v = fill(v); {
		case len(v) == 12 && strings.Trim(v, "0123456789") == "":
			account(v)
		case strings.HasSuffix(v, ":root"):
			account(strings.SplitN(v, ":", 6)[4])
		case strings.HasPrefix(v, "arn:"):
			out[v] = v
		}
	}
	for _, st := range statementsOf(doc) {
		p, _ := st["Principal"].(map[string]any)
		for kind, vs := range p {
			for _, v := range asList(vs) {
				s := fmt.Sprint(v)
				switch {
				case kind == "AWS" && s != "*":
					aws(s)
				case kind == "Service", kind == "Federated":
					out[fill(s)] = fill(s)
				}
			}
		}
	}
	for _, c := range conditionsOf(doc) {
		for _, v := range c.values {
			switch strings.ToLower(c.key) {
			case "aws:principalarn", "aws:principalaccount":
				aws(v)
			case "aws:principalservicename":
				out[fill(v)] = fill(v)
			}
		}
	}
	return out
}

// relaxed is the policy with what could only narrow it taken away: its Deny
// statements, and each Allow's conditions, actions and resources. It admits
// every caller the policy admits under some context.
func relaxed(doc any, trust bool) map[string]any {
	sts := []any{}
	for _, st := range statementsOf(doc) {
		if st["Effect"] != "Allow" {
			continue
		}
		c := maps.Clone(st)
		for _, k := range []string{"Condition", "NotAction", "NotResource", "Resource", "Sid"} {
			delete(c, k)
		}
		c["Action"] = "*"
		if !trust {
			c["Resource"] = "*"
		}
		sts = append(sts, c)
	}
	return map[string]any{"Version": "2012-10-17", "Statement": sts}
}

// probe is a policy to be asked by callers: what it guards, the actions
// asked (each on a resource it takes), the action the relaxed round asks of
// each caller, and the intended request's context, which the candidates
// include.
type probe struct {
	doc      any
	trust    bool
	actors   []actor
	first    func(actor) (action, resource string)
	requests [][2]string // action, resource
	intended map[string]any
}

// neighbourRequest is one question of the second round, with its caller.
type neighbourRequest struct {
	actor actor
	q     iameval.Question
}

// neighbours puts the relaxed round of every probe to the evaluator, in one
// batch, and returns for each probe the questions of its second round:
// every action of it, by every caller the relaxed policy admits (or could
// not be read for), in every context the caller could bring.
func neighbours(probes []probe) ([][]neighbourRequest, error) {
	var qs []iameval.Question
	var at [][2]int // probe, actor
	for i, p := range probes {
		r := relaxed(p.doc, p.trust)
		if len(r["Statement"].([]any)) == 0 {
			continue // no Allow: nobody is admitted
		}
		for j, a := range p.actors {
			action, resource := p.first(a)
			qs = append(qs, iameval.Question{Principal: a.principal, Action: action, Resource: resource, Account: account,
				Context: a.context, IdentityPolicies: a.identity, ResourcePolicy: r, Trust: p.trust})
			at = append(at, [2]int{i, j})
		}
	}
	answers, err := iameval.Ask(qs)
	if err != nil {
		return nil, err
	}
	out := make([][]neighbourRequest, len(probes))
	for n, ans := range answers {
		if !ans.Allowed() && ans.Result != "Error" {
			continue
		}
		p := probes[at[n][0]]
		a := p.actors[at[n][1]]
		for _, ctx := range contextsOf(a, conditionsOf(p.doc), p.intended) {
			for _, req := range p.requests {
				out[at[n][0]] = append(out[at[n][0]], neighbourRequest{a, iameval.Question{Principal: a.principal, Action: req[0], Resource: req[1], Account: account,
					Context: ctx, IdentityPolicies: a.identity, ResourcePolicy: p.doc, Trust: p.trust}})
			}
		}
	}
	return out, nil
}

// actorsOf are the callers a policy is asked by: the principals the trust
// rule asks as outsiders (askedPrincipals) and those the policy names, each
// holding what identity gives its account's callers. The services the
// policy's text does not name are alike to it: one of them asks for all.
func actorsOf(doc any, asked []string, identity func(actor) []any) []actor {
	text, _ := json.Marshal(doc)
	seen := map[string]bool{}
	var out []actor
	anyone := false
	add := func(p, as string) {
		if seen[p] {
			return
		}
		seen[p] = true
		a := identityOf(p)
		a.named, a.as = as != "", as
		if a.kind == serviceCaller && as == "" && !strings.Contains(string(text), p) {
			if anyone {
				return
			}
			a.anyone, anyone = true, true
		}
		a.identity = identity(a)
		out = append(out, a)
	}
	named := namedPrincipals(doc)
	for _, p := range slices.Sorted(maps.Keys(named)) {
		add(p, named[p])
	}
	for _, p := range asked {
		add(p, "")
	}
	return out
}

// label is who the caller is, for a finding.
func (a actor) label() string {
	if a.anyone {
		return "any AWS service (asked as " + a.principal + ")"
	}
	return a.principal
}

// allowAllPolicies is what a caller of another account holds: every
// permission its own account can give it (IAM's cross-account rule wants
// its own allow too), so that it is asked as the strongest version of itself.
var allowAllPolicies = []any{map[string]any{"Version": "2012-10-17", "Statement": []any{map[string]any{"Effect": "Allow", "Action": "*", "Resource": "*"}}}}

// withIdentity is a context with the keys IAM sets from the principal.
func withIdentity(principal string, ctx map[string]any) map[string]any {
	out := identityOf(principal).context
	maps.Copy(out, ctx)
	return out
}

// askedPrincipals are the principals the trust rule asks as outsiders.
func askedPrincipals(services []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, q := range outsiders(trustedRole{}, services, []string{"sts:AssumeRole"}) {
		if !seen[q.Principal] {
			seen[q.Principal] = true
			out = append(out, q.Principal)
		}
	}
	return out
}

// stsActionOf is the action through which a caller assumes a role.
func stsActionOf(a actor) string {
	switch {
	case strings.Contains(a.principal, ":saml-provider/"):
		return "sts:AssumeRoleWithSAML"
	case a.kind == webCaller:
		return "sts:AssumeRoleWithWebIdentity"
	}
	return "sts:AssumeRole"
}

// trustProbe asks a role's trust policy (as the role resource) of the
// principals it names and, when it has conditions, of every principal
// asked, with every STS action on a role.
func trustProbe(tr trustedRole, asked, acts []string, resource string) probe {
	if len(conditionsOf(tr.trust)) == 0 {
		asked = nil
	}
	p := probe{doc: tr.trust, trust: true, intended: tr.assumer.context,
		actors: actorsOf(tr.trust, asked, func(a actor) []any {
			if a.kind == iamCaller {
				return allowAllPolicies
			}
			return nil
		}),
		first: func(a actor) (string, string) { return stsActionOf(a), resource }}
	for _, act := range acts {
		p.requests = append(p.requests, [2]string{act, resource})
	}
	return p
}
