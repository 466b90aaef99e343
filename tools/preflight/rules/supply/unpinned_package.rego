# METADATA
# title: Packages install at the versions pinned
# related_resources:
#   - ref: https://pip.pypa.io/en/stable/topics/secure-installs/
# custom:
#   id: PS-SUP-002
#   danger: a tool or package installed by a floating version (@latest, a branch, a range) or by npm install instead of the lockfile runs whatever its registry serves when CI runs.
#   fix: pin an exact version a registry checks (name==X.Y.Z, pkg@vX.Y.Z, npm ci from the lockfile), or --require-hashes
package preflight.rules.unpinned_package

import data.preflight.lib.shell

# pip's "Secure installs" and "Repeatable installs" (== pins, or hashes);
# the Go modules reference ("go install pkg@version": the checksum
# database verifies a version, never a branch or latest); npm ci (installs
# exactly the lockfile).

finding(sc, s, what) := {"file": sc.file, "line": s.line, "msg": sprintf("%s: %s", [shell.where(sc), what])}

calls contains [sc, s, a] if {
	some sc in input.scripts
	some s in sc.stmts
	a := shell.command(s)
}

# go install, run and get name a release (vX.Y.Z).
deny contains finding(sc, s, sprintf("`go %s %s` fetches whatever %s is at `%s` when CI runs", [args[0], w, pkg, version])) if {
	some [sc, s, a] in calls
	a[0] == "go"
	args := go_args(a)
	args[0] in {"install", "run", "get"}
	some w in array.slice(args, 1, count(args))
	not startswith(w, "-")
	[pkg, version] := split(w, "@")
	not regex.match(`^v\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$`, version)
}

go_args(a) := array.slice(a, 3, count(a)) if a[1] == "-C"

else := array.slice(a, 1, count(a))

# pip installs exact versions, or checks hashes.
pip(a) if a[0] in {"pip", "pip3", "pipx"}

pip(a) if {
	a[0] == "uv"
	a[1] == "pip"
}

pip(a) if {
	startswith(a[0], "python")
	a[1] == "-m"
	a[2] == "pip"
}

pip_args(a) := array.slice(a, i + 1, count(a)) if {
	pip(a)
	some i, w in a
	w == "install"
	not "--require-hashes" in a
}

valued := {"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url", "--extra-index-url", "-t", "--target", "--prefix", "--root", "-f", "--find-links", "--python-version", "--platform", "--implementation", "--abi", "--upgrade-strategy", "--progress-bar", "--python"}

value_of_flag(args, k) if {
	k > 0
	args[k - 1] in valued
}

exact := `^[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[^\]]*\])?\s*===?\s*[0-9][0-9A-Za-z.+!-]*$`

pinned(w) if {
	regex.match(exact, w)
	not contains(w, "*")
}

deny contains finding(sc, s, what) if {
	some [sc, s, a] in calls
	args := pip_args(a)
	some k, w in args
	not startswith(w, "-")
	not value_of_flag(args, k)
	not local(w)
	not pinned(w)
	what := pip_what(w)
}

local(w) if w == "."

local(w) if strings.any_prefix_match(w, ["./", "/"])

pip_what(w) := "pip installs a package named at run time" if shell.computed(w)

else := sprintf("`pip install %s` takes whatever version the index serves today", [w])

# The requirements files pip installs: each line an exact version or a
# hash.
requirements contains [sc, s, args[k + 1]] if {
	some [sc, s, a] in calls
	args := pip_args(a)
	some k, w in args
	w in {"-r", "--requirement"}
}

deny contains finding(sc, s, sprintf("cannot read %s to check its pins (it is not among input.files)", [f])) if {
	some [sc, s, f] in requirements
	not input.files[f]
}

deny contains {"file": f, "line": i + 1, "msg": sprintf("`%s` lets pip take whatever matching version the index serves when CI runs", [l])} if {
	some [_, _, f] in requirements
	some i, line in input.files[f].lines
	l := trim_space(regex.replace(line, `#.*$`, ""))
	l != ""
	not startswith(l, "-")
	not contains(l, "--hash=")
	not pinned(l)
}

# npm ci installs the lockfile; npx and its kin run what is installed, or
# an exact version; yarn and pnpm keep the lockfile frozen.
sub(a) := w if {
	some k, w in a
	k > 0
	not startswith(w, "-")
	k == min({i | some i, v in a; i > 0; not startswith(v, "-")})
} else := ""

deny contains finding(sc, s, sprintf("`npm %s` resolves versions anew instead of installing the lockfile", [sub(a)])) if {
	some [sc, s, a] in calls
	a[0] == "npm"
	sub(a) in {"install", "i", "in", "add", "isntall", "update", "up", "upgrade"}
}

runner(a) if a[0] == "npx"

runner(a) if {
	a[0] == "npm"
	sub(a) == "exec"
}

runner(a) if {
	a[0] in {"pnpm", "yarn"}
	sub(a) == "dlx"
}

deny contains finding(sc, s, sprintf("`%s` downloads the latest %s when it is not installed", [concat(" ", array.slice(a, 0, 3)), pkg])) if {
	some [sc, s, a] in calls
	runner(a)
	count({"--no", "--no-install", "--offline"} & {w | some w in a}) == 0
	pkg := [w | some w in array.slice(a, 1, count(a)); not startswith(w, "-"); not w in {"exec", "dlx"}][0]
	not regex.match(`^(?:@[^/\s]+/)?[^@\s]+@\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$`, pkg)
}

deny contains finding(sc, s, sprintf("`%s` can resolve versions outside the lockfile", [concat(" ", array.slice(a, 0, 3))])) if {
	some [sc, s, a] in calls
	a[0] in {"yarn", "pnpm"}
	unfrozen(a)
}

unfrozen(a) if sub(a) in {"add", "up", "upgrade", "update"}

unfrozen(a) if {
	sub(a) in {"", "install"}
	count({"--frozen-lockfile", "--immutable"} & {w | some w in a}) == 0
}
