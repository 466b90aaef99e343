# METADATA
# title: No event data in the environment files
# related_resources:
#   - ref: https://docs.zizmor.sh/audits/#github-env
# custom:
#   id: PS-WF-014
#   danger: event data (a title, a branch name, a commit message) written to $GITHUB_ENV, $GITHUB_PATH or $GITHUB_OUTPUT can set LD_PRELOAD, PATH or an output that later steps run.
#   fix: "pass it to the step that needs it through env: and read it there as \"$NAME\""
package preflight.rules.github_env

import data.preflight.lib.shell

# zizmor's github-env: an attacker who sets a variable (LD_PRELOAD,
# BASH_ENV, NODE_OPTIONS) or a PATH entry runs code in every later step; its
# remedy, "stick with literal strings and values computed solely from
# trusted sources". zizmor looks only in workflows with dangerous triggers;
# here every workflow, since a push carries a commit message and a branch
# name too. The reading is coarse, as the audit advises: a statement that
# reads event data taints every variable it sets and every file it writes;
# a variable set from an environment file's name, and a descriptor opened on
# one, name it too.

event_data := `\bgithub\s*(?:\.\s*(?:event|head_ref)\b|\[\s*'(?:event|head_ref)'\s*\])|toJSON\s*\(\s*github\s*\)|\binputs\s*[.\[]`

env_files := {"GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT"}

msg := "event data reaches $GITHUB_ENV, $GITHUB_PATH or $GITHUB_OUTPUT: a pull request's title or branch name could set LD_PRELOAD, PATH or an output that later steps run"

steps contains [w, j, s] if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
}

# env(w, j, s) is what the step's env: sees, the step's over the job's over
# the workflow's.
env(w, j, s) := object.union(object.union(values(w.top), values(j.keys)), values(s.keys))

values(keys) := {k: sprintf("%v", [v]) | some k, v in object.get(keys, ["env", "value"], {})}

# tainted_env: the variables whose value holds event data, through
# ${{ env.X }} of one that does.
tainted_env(e) := graph.reachable({a: {b | some b, v in e; regex.match(sprintf(`\benv\s*\.\s*%s\b`, [a]), v)} | some a, _ in e}, {k | some k, v in e; some x in regex.find_n(`\$\{\{[\s\S]*?\}\}`, v, -1); regex.match(event_data, x)})

# sources and targets of a statement, as nodes: "v:NAME", "f:FILE".
sources(sc, s) := ({sprintf("v:%s", [r]) | some t in shell.within(sc, s); some r in t.reads} | {sprintf("f:%s", [w]) | some t in shell.within(sc, s); some w in array.concat(object.get(t, "words", []), [r.word | some r in t.redirs])}) | dumps(sc, s)

dumps(sc, s) := {"env" | some t in shell.within(sc, s); t.kind == "call"; dump(t.words)}

dump(words) if words in {["env"], ["printenv"], ["set"]}

dump(words) if {
	count(words) == 2
	words[0] in {"export", "declare"}
	startswith(words[1], "-p")
}

targets(sc, s) := ({sprintf("v:%s", [a.name]) | some t in shell.within(sc, s); some a in t.assigns} | {sprintf("v:%s", [v]) | some t in shell.within(sc, s); t.kind == "call"; some v in set_by(t.words)}) | {sprintf("f:%s", [r.word]) | some t in shell.within(sc, s); some r in t.redirs; r.op in {">", ">>", ">|"}; not shell.computed(r.word)}

set_by(words) := {w | words[0] in {"read", "mapfile", "readarray"}; some w in array.slice(words, 1, count(words)); regex.match(`^[A-Za-z_][A-Za-z0-9_]*$`, w)} | {words[k + 1] | words[0] == "printf"; some k, w in words; w == "-v"}

tainted(sc, start) := graph.reachable(
	{n: {t | some s in sc.stmts; n in sources(sc, s); some t in targets(sc, s)} | some s in sc.stmts; some n in sources(sc, s)},
	start,
)

sinks(sc) := env_files | graph.reachable({x: {a.name | some s in sc.stmts; some a in s.assigns; shell.mentions(a.value, x)} | some x in (env_files | {r | some s in sc.stmts; some r in s.reads})}, env_files)

fds(sc) := {r.fd | some s in sc.stmts; some r in s.redirs; r.fd != ""; some x in sinks(sc); shell.mentions(r.word, x)}

writes(sc, s) if {
	some r in s.redirs
	r.op in {">", ">>", ">|", "&>", "&>>"}
	some x in sinks(sc)
	shell.mentions(r.word, x)
}

writes(sc, s) if {
	some r in s.redirs
	r.op == ">&"
	r.word in fds(sc)
}

writes(sc, s) if {
	a := shell.command(s)
	a[0] in {"tee", "cp", "mv", "dd", "install", "ln", "rsync", "sed", "awk"}
	some w in array.slice(a, 1, count(a))
	some x in sinks(sc)
	shell.mentions(w, x)
}

reads_data(sc, s, bad) if {
	some n in sources(sc, s)
	n in bad
}

deny contains {"file": sc.file, "line": s.line, "msg": sprintf("%s: %s", [shell.where(sc), msg])} if {
	some sc in input.scripts
	sc.kind == "step"
	some s in sc.stmts
	writes_file(sc, s) # first: the taint is worked out only where a file is written
	some [w, j, st] in steps
	w.name == sc.workflow
	j.name == sc.job
	st.index == sc.step
	start := {sprintf("v:%s", [v]) | some v in ({"__event_data", "GITHUB_HEAD_REF", "GITHUB_EVENT_PATH"} | tainted_env(env(w, j, st)))} | {"env"}
	bad := tainted(sc, start) | start
	writes_data(sc, s, bad)
}

writes_file(sc, s) if {
	s.kind != "pipe"
	writes(sc, s)
}

writes_file(sc, s) if {
	s.kind == "pipe"
	some p in s.parts
	writes(sc, sc.stmts[p])
}

writes_data(sc, s, bad) if {
	s.kind != "pipe"
	writes(sc, s)
	reads_data(sc, s, bad)
}

writes_data(sc, s, bad) if {
	s.kind == "pipe"
	some i, p in s.parts
	writes(sc, sc.stmts[p])
	some k, q in s.parts
	k <= i
	reads_data(sc, sc.stmts[q], bad)
}

deny contains {"file": w.file, "line": s.line, "msg": sprintf("job %s, step %d %q: the script exports event data (context.payload, or an env: of it) through core.exportVariable, addPath or setOutput", [j.name, s.index, s.label])} if {
	some [w, j, s] in steps
	s.action == "actions/github-script"
	script := object.get(s.with, "script", "")
	regex.match(`core\s*\.\s*(?:exportVariable|addPath|setOutput)\s*\(`, script)
	script_data(script, tainted_env(env(w, j, s)))
}

script_data(script, _) if contains(script, "context.payload")

script_data(script, _) if regex.match(event_data, script)

script_data(script, bad) if {
	some v in bad
	regex.match(sprintf(`process\s*\.\s*env\s*(?:\.\s*%s\b|\[\s*['"]%s['"]\s*\])`, [v, v]), script)
}
