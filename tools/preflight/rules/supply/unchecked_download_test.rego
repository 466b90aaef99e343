package preflight.rules.unchecked_download_test

import data.preflight.rules.unchecked_download

call(id, words) := {"id": id, "parent": -1, "end": id, "line": id + 1, "kind": "call", "words": words}

facts(stmts) := {"scripts": [{"file": ".ci/run", "kind": "ci", "where": ".ci/run", "stmts": stmts}]}

pipe(into) := [
	{"id": 0, "parent": -1, "end": 2, "line": 1, "kind": "pipe", "parts": [1, 2]},
	object.union(call(1, ["curl", "-LsSf", "https://astral.sh/uv/install.sh"]), {"parent": 0}),
	object.union(call(2, into), {"parent": 0}),
]

test_refuses_curl_into_sh if {
	count(unchecked_download.deny) == 1 with input as facts(pipe(["sh"]))
}

test_passes_curl_into_a_file_checker if {
	count(unchecked_download.deny) == 0 with input as facts(pipe(["sha256sum"]))
}

test_refuses_a_download_run_unchecked if {
	count(unchecked_download.deny) == 1 with input as facts([call(0, ["curl", "-o", "tool", "https://x/tool"]), call(1, ["chmod", "+x", "tool"]), call(2, ["./tool"])])
}

test_passes_a_download_checked_first if {
	count(unchecked_download.deny) == 0 with input as facts([call(0, ["curl", "-o", "tool", "https://x/tool"]), call(1, ["sha256sum", "-c", "tool.sha256"]), call(2, ["./tool"])])
}

test_refuses_bash_of_a_substitution if {
	stmts := [{"id": 0, "parent": -1, "end": 1, "line": 1, "kind": "call", "words": ["bash", "<(curl -s https://x/i.sh)"]}, object.union(call(1, ["curl", "-s", "https://x/i.sh"]), {"parent": 0})]
	count(unchecked_download.deny) == 1 with input as facts(stmts)
}

test_refuses_a_download_by_clustered_options_run_unchecked if {
	count(unchecked_download.deny) == 1 with input as facts([call(0, ["curl", "-fsSLo", "/tmp/i.sh", "https://x/i.sh"]), call(1, ["bash", "/tmp/i.sh"])])
	count(unchecked_download.deny) == 1 with input as facts([call(0, ["wget", "-qO", "i.sh", "https://x/i.sh"]), call(1, ["sh", "./i.sh"])])
	count(unchecked_download.deny) == 1 with input as facts([call(0, ["curl", "-fsSLO", "https://x/tool.tar.gz"]), call(1, ["tar", "-xzf", "tool.tar.gz"])])
}

test_refuses_a_download_redirected_to_a_file_run_unchecked if {
	curl := object.union(call(0, ["curl", "-fsSL", "https://x/i.sh"]), {"redirs": [{"op": ">", "fd": "", "word": "i.sh"}]})
	count(unchecked_download.deny) == 1 with input as facts([curl, call(1, ["bash", "i.sh"])])
}
