# METADATA
# title: The checks run the system's make, go and bash
# related_resources:
#   - ref: https://www.gnu.org/software/bash/manual/html_node/Bash-Startup-Files.html
# custom:
#   id: PS-CI-007
#   danger: a PATH that puts a folder of the checkout before the system's, BASH_ENV or ENV (a file bash runs before .ci/run and before every recipe line), or an alias or hash -p in .ci/run lets a file of the repository stand in for make, go or bash, and a stand-in that exits 0 passes every check.
#   fix: keep PATH, BASH_ENV and ENV out of the checks' environment (ci.yml's env, .ci/run, the Makefile), and call make and go by name in .ci/run, with no alias or hash -p
package preflight.rules.checks_tools

# Bash ("Bash Startup Files"): a non-interactive bash runs the file that
# BASH_ENV names before its script, and so does each recipe line's bash
# (SHELL := bash); sh runs ENV's. Each command is looked up in PATH, first
# folder first ("Command Search and Execution"); make exports PATH to its
# recipes, with a Makefile's value when it sets one (GNU make, "Variables
# from the Environment"). An alias replaces a name in a script once shopt
# -s expand_aliases is set; hash -p binds a name to any file.

startup := {"BASH_ENV", "ENV"}

deny contains {"file": e.file, "line": e.line, "msg": sprintf("env %s=%s: bash runs that file before .ci/run and before each recipe line: it can define make or go as functions that pass", [e.name, e.value])} if {
	some e in input.gate.env
	e.name in startup
}

deny contains {"file": input.makefile.file, "line": a.line, "msg": sprintf("%s %s %s: each recipe line's bash runs that file first: it can define go as a function that passes", [a.name, a.op, a.value])} if {
	some a in input.makefile.assignments
	a.name in startup
}

deny contains {"file": e.file, "line": e.line, "msg": sprintf("PATH puts %s first: a file there named make, go or bash stands in for the system's, and what it exits with is what CI sees", [d])} if {
	some e in input.gate.env
	e.name == "PATH"
	some d in checkout_dirs(e.value)
}

deny contains {"file": input.makefile.file, "line": a.line, "msg": sprintf("PATH %s %s puts %s on the recipes' PATH: a file there named go or bash stands in for the system's, and what it exits with is what CI sees", [a.op, a.value, d])} if {
	some a in input.makefile.assignments
	a.name == "PATH"
	some d in checkout_dirs(a.value)
}

# checkout_dirs are the folders of a PATH value (a shell word's quotes
# dropped) that are relative or in the checkout (the working directory,
# the workspace).
checkout_dirs(v) := {d |
	some d in split(replace(replace(v, "\"", ""), "'", ""), ":")
	d != ""
	not inherited(d)
	in_checkout(d)
}

inherited(d) if regex.match(`^\$(\{PATH\}|PATH|\(PATH\))$`, d)

in_checkout(d) if not regex.match(`^(/|~|\$\{?HOME\b|\$\(HOME\))`, d)

in_checkout(d) if regex.match(`(?i)(\$\{?PWD\b|\$\(CURDIR\)|\$\{?GITHUB_WORKSPACE\b|github\.workspace)`, d)

deny contains {"file": ".ci/run", "line": c.line, "msg": sprintf("`%s` in .ci/run: the make and go it calls by name can then be any command", [concat(" ", c.words)])} if {
	some sc in input.gate.scripts
	sc.file == ".ci/run"
	some c in sc.commands
	rebinds(c.words)
}

rebinds(w) if w[0] == "alias"

rebinds(w) if {
	w[0] == "hash"
	some x in w
	startswith(x, "-p")
}
