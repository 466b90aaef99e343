# Helpers of the supply-chain rules: the lines a build's scripts run and
# the settings it makes (environment variables, make variables), each with
# the line a person edits.
package preflight.lib.supply

import data.preflight.lib.github

# script_lines are every line of a workflow's run: step, of .ci/run and of
# the Makefile's recipes: {"file", "line", "text", "where"}.
script_lines contains {"file": w.file, "line": github.run_line(s, i), "text": l, "where": github.step_where(j, s)} if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	s.run != ""
	some i, l in split(s.run, "\n")
	not comment(l)
}

script_lines contains {"file": ".ci/run", "line": i + 1, "text": l, "where": ".ci/run"} if {
	some i, l in input.files[".ci/run"].lines
	not comment(l)
}

script_lines contains {"file": input.makefile.file, "line": l.line, "text": l.text, "where": sprintf("target %s", [t])} if {
	some t, rs in input.makefile.rules
	some r in rs
	some l in r.recipe
}

comment(l) if startswith(trim_space(l), "#")

# settings are the variables a build sets for what it runs:
# {"file", "line", "name", "value", "where"}: a workflow's env: (its own, a
# job's, a step's), the Makefile's assignments, and NAME=value or
# `go env -w NAME=value` in a script.
settings contains {"file": e.file, "line": e.line, "name": e.name, "value": sprintf("%v", [e.value]), "where": setting_where(e)} if {
	some e in input.supply.settings
	e["in"] == "env"
}

settings contains {"file": input.makefile.file, "line": a.line, "name": a.name, "value": a.value, "where": "the Makefile"} if {
	some a in input.makefile.assignments
}

settings contains {"file": l.file, "line": l.line, "name": m[2], "value": trim(m[3], `"'`), "where": l.where} if {
	some l in script_lines
	some m in regex.find_all_string_submatch_n(`(^|[\s;&|(]|")([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|[^\s;&|)"]*)`, l.text, -1)
}

setting_where(e) := "the workflow's env" if e.job == ""

else := sprintf("job %s's env", [e.job]) if e.step == 0

else := sprintf("job %s, step %d's env", [e.job, e.step])

# npmrc is .npmrc's settings: {"line", "key", "value"}.
npmrc contains {"line": i + 1, "key": trim_space(kv[0]), "value": trim_space(kv[1])} if {
	some i, l in input.files[".npmrc"].lines
	not comment(l)
	not startswith(trim_space(l), ";")
	kv := split(l, "=")
	count(kv) >= 2
}

# package_json is package.json as data, and json_line the line of a key's
# entry in it ("name": ...), the first after the line of its section.
package_json := json.unmarshal(concat("\n", input.files["package.json"].lines))

json_line(section, key) := min({n | some i, l in input.files["package.json"].lines; startswith(trim_space(l), sprintf("%q", [key])); n := i + 1; n > section_line(section)})

section_line(section) := min({n | some i, l in input.files["package.json"].lines; startswith(trim_space(l), sprintf("%q", [section])); n := i + 1})
