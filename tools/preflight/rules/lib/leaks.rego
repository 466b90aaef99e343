# Helpers of the leak rules: which steps hold a credential, and the lines
# a step's script runs, each with the line a person edits.
package preflight.lib.leaks

import data.preflight.lib.github

# credentials(w, j, s) are the credentials step s can read: AWS keys a
# configure-aws-credentials step earlier in its job exported, the OIDC
# request token of a job with id-token: write (every step's environment
# holds ACTIONS_ID_TOKEN_REQUEST_TOKEN), and the secrets its env, the job's
# or the workflow's names.
credentials(w, j, s) := (aws(j, s) | oidc(w, j)) | secrets(w, j, s)

aws(j, s) := {sprintf("the AWS credentials of step %d (configure-aws-credentials)", [c.index]) |
	some c in j.steps
	c.action == "aws-actions/configure-aws-credentials"
	c.index < s.index
}

oidc(w, j) := {"the OIDC request token (id-token: write)"} if {
	p := object.get(j, ["keys", "permissions", "value"], object.get(w, ["top", "permissions", "value"], {}))
	github.grants_id_token(p)
}

else := set()

secrets(w, j, s) := {m |
	some text in [
		json.marshal(object.get(s, ["keys", "env", "value"], {})),
		object.get(s, "run", ""),
		json.marshal(object.get(s, "with", {})),
		json.marshal(object.get(j, ["keys", "env", "value"], {})),
		json.marshal(object.get(w, ["top", "env", "value"], {})),
	]
	some m in regex.find_n(`secrets\s*\.\s*[A-Za-z_][A-Za-z0-9_]*|toJSON\(\s*secrets\s*\)|github\.token`, text, -1)
}

# run_lines are a step's script lines that are not comments, a line that
# ends in a backslash joined with the next as bash joins them ("Escape
# Character"): {"line" (the first), "text"}.
run_lines(s) := {{"line": github.run_line(s, i), "text": joined(lines, i)} |
	lines := split(object.get(s, "run", ""), "\n")
	some i, l in lines
	not continues(lines, i)
	not startswith(trim_space(l), "#")
	trim_space(l) != ""
}

continues(lines, i) if endswith(lines[i - 1], "\\")

joined(lines, i) := concat(" ", [trim_suffix(lines[k], "\\") | some k in numbers.range(i, last(lines, i))])

last(lines, i) := min({k | some k, l in lines; k >= i; not endswith(l, "\\")} | {count(lines) - 1})

# held is a step's credentials, said for a finding.
held(w, j, s) := concat(", ", sort(credentials(w, j, s)))
