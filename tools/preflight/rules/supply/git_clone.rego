# METADATA
# title: A cloned repository is pinned to a commit
# related_resources:
#   - ref: https://git-scm.com/docs/git-clone
# custom:
#   id: PS-SUP-020
#   danger: a git clone (or fetch) of a branch, a tag or the default branch in CI's scripts builds or runs whatever that ref points to when CI runs, and a push to that repository changes what CI runs without a change here.
#   fix: check out a full 40-hex commit after the clone (git -C dir checkout <sha>), or install a pinned release from a registry
package preflight.rules.git_clone

import data.preflight.lib.shell

# git-clone(1): the clone checks out the remote's HEAD, or the branch or
# tag --branch names; both move. Only a commit id names content.

finding(sc, s, what) := {"file": sc.file, "line": s.line, "msg": sprintf("%s: %s", [shell.where(sc), what])}

git_args(a) := [w | some k, w in a; k > 0; not c_option(a, k)]

# c_option: -C dir and -c name=value are git's own options, not the
# subcommand's.
c_option(a, k) if a[k] in {"-C", "-c"}

c_option(a, k) if a[k - 1] in {"-C", "-c"}

fetches(s) if {
	a := shell.command(s)
	a[0] == "git"
	git_args(a)[0] in {"clone", "fetch", "pull"}
}

pinned(sc, s) if {
	some t in sc.stmts
	t.id > s.id
	a := shell.command(t)
	a[0] == "git"
	g := git_args(a)
	g[0] in {"checkout", "reset", "switch"}
	some w in g
	regex.match(`^[0-9a-f]{40}$`, w)
}

deny contains finding(sc, s, sprintf("`%s` takes whatever its ref points to when CI runs, and no later checkout names a commit", [concat(" ", shell.command(s))])) if {
	some sc in input.scripts
	some s in sc.stmts
	fetches(s)
	not pinned(sc, s)
}
