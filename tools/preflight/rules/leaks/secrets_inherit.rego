# METADATA
# title: Reusable workflows get only the secrets they name
# related_resources:
#   - ref: https://docs.zizmor.sh/audits/#secrets-inherit
# custom:
#   id: PS-WF-025
#   danger: "`secrets: inherit` hands every secret of the repository and its environments to the called workflow, whatever it needs, so a change there (or at its ref) can read them all."
#   fix: "pass each secret the called workflow declares by name (secrets: NAME: ${{ secrets.NAME }}), or none"
package preflight.rules.secrets_inherit

deny contains {"file": w.file, "line": j.keys.secrets.line, "msg": msg} if {
	some w in input.workflows
	some j in w.jobs
	j.keys.secrets.value == "inherit"
	msg := sprintf("job %s calls %s with `secrets: inherit`: it gets every secret, not the ones it names", [j.name, j.uses])
}
