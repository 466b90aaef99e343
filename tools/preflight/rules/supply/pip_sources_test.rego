package preflight.rules.pip_sources_test

import data.preflight.rules.pip_sources

base := {"makefile": {"file": "Makefile", "rules": {}, "assignments": []}, "workflows": [], "supply": {"settings": []}}

requirements(lines) := object.union(base, {"files": {".github/requirements.txt": {"lines": lines}}})

ci_run(line) := object.union(base, {"files": {".ci/run": {"lines": [line]}}})

test_refuses_an_extra_index if {
	some f in pip_sources.deny with input as requirements(["--extra-index-url https://pypi.example.com/simple", "cfn-lint==1.51.0"])
	f.line == 1
}

test_refuses_an_editable_branch if {
	count(pip_sources.deny) == 1 with input as requirements(["-e git+https://github.com/aws/serverless-application-model@develop#egg=aws-sam-translator"])
}

test_refuses_an_index_on_pip_install if {
	count(pip_sources.deny) == 1 with input as ci_run("python3 -m pip install -i https://test.pypi.org/simple/ moto==5.2.1")
}

test_refuses_pip_index_url_in_the_environment if {
	inp := object.union(base, {"files": {}, "supply": {"settings": [{"file": ".github/workflows/ci.yml", "line": 9, "job": "", "step": 0, "in": "env", "name": "PIP_EXTRA_INDEX_URL", "value": "https://pypi.example.com/simple"}]}})
	count(pip_sources.deny) == 1 with input as inp
}

test_passes_pinned_lines_and_hashes if {
	count(pip_sources.deny) == 0 with input as requirements(["# comment", "cfn-lint==1.51.0", "moto[server]==5.2.1 --hash=sha256:abc"])
	count(pip_sources.deny) == 0 with input as ci_run("python3 -m pip install --quiet -r .github/requirements.txt")
}
