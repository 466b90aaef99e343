# Helpers of the workflow rules: GitHub's own semantics of triggers,
# expressions, permissions and needs (GitHub "Workflow syntax for GitHub
# Actions"), so that each rule reads as its danger.
package preflight.lib.github

# expressions are the ${{ ... }} of a string.
expressions(s) := regex.find_n(`\$\{\{[\s\S]*?\}\}`, s, -1)

# only_push_to_main: `on: push: branches: [main]` and nothing else.
only_push_to_main(w) if {
	count(w.triggers) == 1
	t := w.triggers[0]
	t.event == "push"
	object.keys(t.config) == {"branches"}
	branches := as_list(t.config.branches)
	branches == ["main"]
}

as_list(x) := x if is_array(x)

as_list(x) := [x] if not is_array(x)

# filter_matches applies GitHub's filter patterns (* not across /, **
# across, a leading ! takes back an earlier match; the last that matches
# decides).
filter_matches(patterns, name) if {
	some i, p in patterns
	not startswith(p, "!")
	glob.match(p, ["/"], name)
	not taken_back(patterns, i, name)
}

taken_back(patterns, i, name) if {
	some j, p in patterns
	j > i
	startswith(p, "!")
	glob.match(substring(p, 1, -1), ["/"], name)
}

# push_reaches: a push trigger with this configuration runs for a push to
# branch (with only tag filters, a push to a branch does not run it).
push_reaches(cfg, branch) if {
	is_null(cfg)
}

push_reaches(cfg, branch) if {
	is_object(cfg)
	filter_matches(as_list(cfg.branches), branch)
}

push_reaches(cfg, branch) if {
	is_object(cfg)
	not cfg.branches
	cfg["branches-ignore"]
	not filter_matches(as_list(cfg["branches-ignore"]), branch)
}

push_reaches(cfg, branch) if {
	is_object(cfg)
	count({"branches", "branches-ignore", "tags", "tags-ignore"} & object.keys(cfg)) == 0
}

# publishes: the workflow runs where what it builds ships (a push to main,
# a tag, a release).
publishes(w) if {
	some t in w.triggers
	t.event == "release"
}

publishes(w) if {
	some t in w.triggers
	t.event == "push"
	push_reaches(t.config, "main")
}

publishes(w) if {
	some t in w.triggers
	t.event == "push"
	is_object(t.config)
	t.config.tags
}

# permissions(j) is a job's permissions as written, or null.
permissions(node) := node.keys.permissions.value if node.keys.permissions

grants_id_token(p) if p == "write-all"

grants_id_token(p) if p["id-token"] == "write"

# privilege lists why a job is privileged: an environment, an OIDC token,
# a secret other than GITHUB_TOKEN.
privilege(w, j) := ((env_why(j) | token_why(w, j)) | secrets_why(j)) | {r | some r in j.secret_refs}

env_why(j) := {sprintf("environment %v", [j.environment])} if j.has_environment

else := set()

token_why(w, j) := {"id-token: write"} if grants_id_token(permissions(j))

else := {"id-token: write"} if grants_id_token(w.top.permissions.value)

else := set()

secrets_why(j) := {sprintf("secrets: passed to %s", [j.uses])} if j.secrets_passed

else := set()

# status_functions: an if that runs after a failure.
runs_after_failure(j) if regex.match(`(?i)\b(always|failure|cancelled)\s*\(`, j["if"])

# waits(w, from) are the jobs `from` waits for through needs, with no job
# on the way (from included) that runs after a failure.
needs_graph(w) := {j.name: {n | some n in j.needs; not runs_after_failure(j)} | some j in w.jobs}

waits(w, from) := graph.reachable(needs_graph(w), {from}) if {
	some j in w.jobs
	j.name == from
	not runs_after_failure(j)
}

waits(w, from) := set() if {
	some j in w.jobs
	j.name == from
	runs_after_failure(j)
}

# A block scalar's script starts on the line after run:; a plain one on
# run:'s own line.
run_line(s, i) := (s.keys.run.line + 1) + i if contains(s.run, "\n")

else := s.keys.run.line

# step_where is a step's label for a finding.
step_where(j, s) := sprintf("job %s, step %d %q", [j.name, s.index, s.label])
