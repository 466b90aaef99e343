package preflight

import (
	"fmt"
	"slices"
	"sort"

	"github.com/plantstore/plantstore/tools/iameval"
)

// The rule of trust: a role is assumed by the one principal that uses it,
// with the one action that principal calls, and by nobody else with any
// action of STS that takes a role. Who uses a role follows from the
// template (a function's Role: Lambda; a deployment group's ServiceRoleArn:
// CodeDeploy; the API Gateway account's CloudWatchRoleArn: API Gateway) or,
// for the pipeline's roles, from pipelineAssumers. The evaluator is asked, for
// every role of every variant, whether each principal outside the intended
// one may assume it: every service principal AWS's service reference names,
// other accounts' and this account's root, roles, users and sessions (each
// holding every permission its own account can give it: IAM's cross-account
// rule wants the caller's own allow too), GitHub's OIDC subjects of other
// repositories, owners, branches, tags, pull requests and environments, and
// other identity providers; each with the keys IAM sets from who it is
// (identityOf). The rule of conditions (conditions.go) adds the principals
// the trust policy names and, where it has conditions, every context of
// every outsider that its condition keys could match. The answers are
// facts (trustFacts); PS-IAM-003, rules/iam/trust.rego, judges them.

// assumer is the principal a role is for, with the action it calls and the
// context its request carries.
type assumer struct {
	principal string
	action    string
	context   map[string]any
}

const (
	githubIssuer = "token.actions.githubusercontent.com"
	githubSub    = githubIssuer + ":sub"
	githubAud    = githubIssuer + ":aud"
	otherAccount = "999999999999"
)

var oidcProvider = "arn:" + partition + ":iam::" + account + ":oidc-provider/" + githubIssuer

// pipelineAssumers states who assumes each role of pipeline/roles.yaml: the
// deploy role, the jobs of its own GitHub environment (GitHub's "Security
// hardening with OpenID Connect": a job that names an environment gets the
// sub repo:<owner>/<repo>:environment:<name>, and the environment's
// deployment branches decide which code runs it); the execution role,
// CloudFormation in this account.
var pipelineAssumers = map[string]func(e env) assumer{
	"DeployRole": func(e env) assumer {
		return assumer{oidcProvider, "sts:AssumeRoleWithWebIdentity",
			map[string]any{githubSub: fmt.Sprintf("repo:%s/%s:environment:%s", owner, repo, e.name), githubAud: "sts.amazonaws.com"}}
	},
	"CloudFormationExecutionRole": func(env) assumer {
		return assumer{"cloudformation.amazonaws.com", "sts:AssumeRole", map[string]any{"aws:SourceAccount": account}}
	},
}

// serviceUses are the properties through which a service assumes a role of
// the app's template.
var serviceUses = []struct{ typ, property, service string }{
	{"AWS::Lambda::Function", "Role", "lambda.amazonaws.com"},
	{"AWS::CodeDeploy::DeploymentGroup", "ServiceRoleArn", "codedeploy.amazonaws.com"},
	{"AWS::ApiGateway::Account", "CloudWatchRoleArn", "apigateway.amazonaws.com"},
}

// trustedRole is a role with the stack it belongs to, the services and
// principals that use it, and its assumer (when one alone does).
type trustedRole struct {
	variant, id, file string
	role
	users   []string
	assumer assumer
}

// rolesOf lists every role of the variant's stacks with who uses it.
func rolesOf(e env) ([]trustedRole, error) {
	var out []trustedRole
	placed, err := e.roles()
	if err != nil {
		return nil, err
	}
	for _, pr := range placed {
		r, ro, id := pr.stack, pr.role, pr.id
		tr := trustedRole{variant: e.name, id: id, file: fileOf(e, r), role: ro, users: []string{}}
		if r == e.pipeline {
			if f, ok := pipelineAssumers[id]; ok {
				tr.assumer = f(e)
				tr.users = append(tr.users, tr.assumer.principal)
			}
		} else {
			for _, use := range serviceUses {
				for _, res := range r.ResourcesOfType(use.typ) {
					p, err := r.Properties(res)
					if err != nil {
						return nil, err
					}
					if p[use.property] == ro.arn && !slices.Contains(tr.users, use.service) {
						tr.users = append(tr.users, use.service)
						tr.assumer = assumer{principal: use.service, action: "sts:AssumeRole"}
					}
				}
			}
		}
		out = append(out, tr)
	}
	return out, nil
}

// outsiders are the requests that must not assume role tr: every STS action
// that takes a role (by AWS's service reference), from every principal but
// the intended one, and the intended principal calling another action.
func outsiders(tr trustedRole, services []string, stsActions []string) []iameval.Question {
	type caller struct {
		principal string
		context   map[string]any
		identity  []any
	}
	var callers []caller
	seen := map[string]bool{}
	for _, s := range services {
		p := s + ".amazonaws.com"
		if seen[p] {
			continue
		}
		seen[p] = true
		callers = append(callers, caller{principal: p, context: withIdentity(p, map[string]any{"aws:SourceAccount": account})})
	}
	iam := func(acct, rest string) string { return fmt.Sprintf("arn:%s:iam::%s:%s", partition, acct, rest) }
	for _, acct := range []string{otherAccount, account} {
		for _, p := range []string{iam(acct, "root"), iam(acct, "role/plant-store-dev-Outsider"), iam(acct, "role/plant-store-pipeline-prod-DeployRole-X"), iam(acct, "user/someone"),
			fmt.Sprintf("arn:%s:sts::%s:assumed-role/plant-store-dev-Outsider/session", partition, acct)} {
			callers = append(callers, caller{principal: p, identity: allowAllPolicies, context: withIdentity(p, nil)})
		}
	}
	// Web identities: GitHub's subjects of every kind, for this repository
	// and its look-alikes, with the right and a wrong audience; GitHub's
	// provider in another account; other providers.
	for _, r := range []string{owner + "/" + repo, owner + "/" + repo + "-fork", "someone/" + repo, owner + "/" + repo + "2"} {
		for _, kind := range []string{"environment:dev", "environment:prod", "environment:staging", "ref:refs/heads/main", "ref:refs/heads/feature", "ref:refs/tags/v1", "pull_request"} {
			for _, aud := range []string{"sts.amazonaws.com", "https://github.com/" + owner} {
				callers = append(callers, caller{principal: oidcProvider, context: map[string]any{githubSub: "repo:" + r + ":" + kind, githubAud: aud}})
			}
		}
	}
	// A service on another account's behalf (the confused deputy), where the
	// role's assumer is asked with aws:SourceAccount.
	if _, ok := tr.assumer.context["aws:SourceAccount"]; ok {
		callers = append(callers, caller{principal: tr.assumer.principal, context: withIdentity(tr.assumer.principal, map[string]any{"aws:SourceAccount": otherAccount})})
	}
	callers = append(callers,
		caller{principal: iam(otherAccount, "oidc-provider/"+githubIssuer), context: map[string]any{githubSub: fmt.Sprintf("repo:%s/%s:environment:dev", owner, repo), githubAud: "sts.amazonaws.com"}},
		caller{principal: iam(account, "oidc-provider/gitlab.com")},
		caller{principal: iam(account, "saml-provider/Corp")},
		caller{principal: "cognito-identity.amazonaws.com"},
		caller{principal: "accounts.google.com"},
		caller{principal: "graph.facebook.com"},
		caller{principal: "www.amazon.com"},
	)
	var qs []iameval.Question
	for _, c := range callers {
		for _, action := range stsActions {
			qs = append(qs, iameval.Question{Principal: c.principal, Action: action, Resource: tr.arn, Account: account,
				Context: c.context, IdentityPolicies: c.identity, ResourcePolicy: tr.trust, Trust: true})
		}
	}
	return qs
}

// trustActions are the actions of STS whose resource is a role.
func trustActions(data map[string][]iameval.Action) []string {
	var out []string
	for _, a := range data["sts"] {
		for _, rt := range a.ResourceTypes {
			if rt.Name == "role" {
				out = append(out, "sts:"+a.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// trustFacts are input.access.roles: each role of the variants, who uses
// it, and, for a role one principal uses, the evaluator's answer to that
// principal's request and every answer that admits (or that the evaluator
// could not read) a request of every other principal, action and context
// asked: the trust rule's outsiders, and the rule of conditions' neighbours
// of the principals the trust policy names and of its condition keys.
// PS-IAM-003 (rules/iam/trust.rego) judges which is the intended request.
func trustFacts(envs []env) ([]any, error) {
	services, err := iameval.Services()
	if err != nil {
		return nil, err
	}
	data, err := iameval.Actions([]string{"sts"})
	if err != nil {
		return nil, err
	}
	acts := trustActions(data)
	if len(acts) == 0 {
		return nil, fmt.Errorf("the evaluator's data names no STS action on a role")
	}
	type asked struct {
		tr       trustedRole
		intended int
		others   []int
	}
	var all []iameval.Question
	var roles []asked
	// Roles of the variants share most of their trust policies: asked of
	// one role ARN, their questions are alike, and Ask puts each once.
	add := func(q iameval.Question) int {
		all = append(all, q)
		return len(all) - 1
	}
	const trusted = "arn:aws:iam::" + account + ":role/trusted" // the same trust policy asks the same questions
	var out []any
	for _, e := range envs {
		trs, err := rolesOf(e)
		if err != nil {
			return nil, err
		}
		for _, tr := range trs {
			if len(tr.users) != 1 {
				out = append(out, map[string]any{"variant": tr.variant, "id": tr.id, "file": tr.file, "users": tr.users})
				continue
			}
			a := asked{tr: tr}
			tr.arn = trusted
			a.intended = add(iameval.Question{Principal: tr.assumer.principal, Action: tr.assumer.action, Resource: tr.arn, Account: account,
				Context: tr.assumer.context, ResourcePolicy: tr.trust, Trust: true})
			for _, q := range outsiders(tr, services, acts) {
				a.others = append(a.others, add(q))
			}
			roles = append(roles, a)
		}
	}
	// The rule of conditions (conditions.go): each trust policy is asked by
	// the principals it names and, where it has conditions, by every
	// outsider in every context its condition keys could match.
	principals := askedPrincipals(services)
	probes := make([]probe, len(roles))
	for i, a := range roles {
		probes[i] = trustProbe(a.tr, principals, acts, trusted)
	}
	second, err := neighbours(probes)
	if err != nil {
		return nil, err
	}
	brought := map[int][2]string{} // a neighbour's question -> who asked, and the keys it brought
	for i, reqs := range second {
		for _, r := range reqs {
			n := add(r.q)
			roles[i].others = append(roles[i].others, n)
			if c := chosen(r.actor, r.q.ResourcePolicy, r.q.Context); c != "" {
				brought[n] = [2]string{r.actor.label(), c}
			}
		}
	}
	answers, err := iameval.Ask(all)
	if err != nil {
		return nil, err
	}
	for _, a := range roles {
		admitted := []any{}
		for _, i := range a.others {
			if ans := answers[i]; ans.Allowed() || ans.Result == "Error" {
				q := all[i]
				admitted = append(admitted, map[string]any{"n": i, "principal": q.Principal, "action": q.Action, "context": q.Context,
					"result": ans.Result, "error": ans.Error, "actor": brought[i][0], "brought": brought[i][1]})
			}
		}
		intended := answers[a.intended]
		out = append(out, map[string]any{"variant": a.tr.variant, "id": a.tr.id, "file": a.tr.file, "users": a.tr.users,
			"assumer":  map[string]any{"principal": a.tr.assumer.principal, "action": a.tr.assumer.action, "context": a.tr.assumer.context},
			"intended": map[string]any{"result": intended.Result, "error": intended.Error}, "admitted": admitted, "account": account})
	}
	return out, nil
}
