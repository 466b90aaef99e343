# METADATA
# title: A check run in the background still fails its recipe
# related_resources:
#   - ref: https://www.gnu.org/software/bash/manual/html_node/Job-Control-Builtins.html
# custom:
#   id: PS-CI-006
#   danger: a check that a recipe runs in the background (&), as make fuzz runs each target, fails nothing by itself; if the recipe never waits for it, or never exits with a failing status when a wait fails, a failing check passes CI.
#   fix: wait for each background check (wait $pid) and end the recipe with exit 1 when one failed
package preflight.rules.waited_checks

deny contains {"file": "Makefile", "line": c.line, "msg": msg} if {
	some r in input.gate.runs
	some c in r.commands
	c.background
	count(c.words) > 0
	not fails_on_wait(r)
	msg := sprintf("make %s runs `%s` in the background but never exits with a failing status after waiting for it: its failure passes CI", [r.target, concat(" ", array.slice(c.words, 0, 2))])
}

fails_on_wait(r) if {
	some w in r.commands
	w.words[0] == "wait"
	some e in r.commands
	count(e.words) == 2
	e.words[0] == "exit"
	e.words[1] != "0"
}
