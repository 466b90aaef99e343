# METADATA
# title: The checks run on every push and pull request
# related_resources:
#   - ref: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#onpushpull_requestpull_request_targetpathspaths-ignore
# custom:
#   id: PS-CI-004
#   danger: a ci.yml without a push or pull_request trigger, with a paths or paths-ignore filter on one, or with pull_request types that leave out synchronize lets a change (or a pull request's later commits) merge without the checks.
#   fix: keep ci.yml's push and pull_request triggers with no paths, paths-ignore or types filter
package preflight.rules.checks_triggers

ci := w if {
	some w in input.workflows
	w.name == "ci.yml"
}

deny contains {"file": ci.file, "line": 1, "msg": sprintf("ci.yml has no %s trigger: a change can merge without the checks", [event])} if {
	some event in {"push", "pull_request"}
	not has_trigger(event)
}

has_trigger(event) if {
	some t in ci.triggers
	t.event == event
}

deny contains {"file": ci.file, "line": t.line, "msg": msg} if {
	some t in ci.triggers
	t.event in {"push", "pull_request"}
	some k in {"paths", "paths-ignore"}
	is_object(t.config)
	t.config[k]
	msg := sprintf("on.%s.%s lets a change to the other paths merge without the checks (the tests read docs, configs and templates too)", [t.event, k])
}

deny contains {"file": ci.file, "line": t.line, "msg": "on.pull_request.types leaves out synchronize: a pull request's later commits are never checked"} if {
	some t in ci.triggers
	t.event == "pull_request"
	is_object(t.config)
	types := t.config.types
	not "synchronize" in types
}
