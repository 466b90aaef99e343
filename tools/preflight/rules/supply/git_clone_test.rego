package preflight.rules.git_clone_test

import data.preflight.rules.git_clone

call(id, words) := {"id": id, "parent": -1, "end": id, "line": id + 1, "kind": "call", "words": words}

facts(stmts) := {"scripts": [{"file": ".ci/run", "kind": "ci", "where": ".ci/run", "stmts": stmts}]}

test_refuses_a_clone_of_a_branch if {
	count(git_clone.deny) == 1 with input as facts([call(0, ["git", "clone", "--depth", "1", "https://github.com/x/tools", "/tmp/t"]), call(1, ["make", "-C", "/tmp/t", "install"])])
	count(git_clone.deny) == 1 with input as facts([call(0, ["git", "clone", "-b", "v1.2.0", "https://github.com/x/tools"])])
}

test_refuses_a_fetch_left_at_its_branch if {
	count(git_clone.deny) == 1 with input as facts([call(0, ["git", "-C", "rules", "fetch", "origin", "main"]), call(1, ["git", "-C", "rules", "checkout", "FETCH_HEAD"])])
}

test_passes_a_clone_checked_out_at_a_commit if {
	count(git_clone.deny) == 0 with input as facts([call(0, ["git", "clone", "https://github.com/x/tools", "t"]), call(1, ["git", "-C", "t", "checkout", "0123456789abcdef0123456789abcdef01234567"])])
}

test_passes_other_git_commands if {
	count(git_clone.deny) == 0 with input as facts([call(0, ["git", "ls-files", "-z"]), call(1, ["git", "diff", "--exit-code"])])
}
