# METADATA
# title: Job containers and services pinned by digest
# related_resources:
#   - ref: https://docs.zizmor.sh/audits/#unpinned-images
# custom:
#   id: PS-WF-013
#   danger: a job's container or service image pulled by tag runs whatever its registry moves the tag to.
#   fix: "pin it by digest: image@sha256:<digest>"
package preflight.rules.unpinned_image

image(v) := v if is_string(v)

image(v) := v.image if is_object(v)

deny contains {"file": w.file, "line": j.keys.container.line, "msg": sprintf("job %s's container `%s` is pulled by tag", [j.name, img])} if {
	some w in input.workflows
	some j in w.jobs
	img := image(j.keys.container.value)
	not regex.match(`@sha256:[0-9a-f]{64}$`, img)
}

deny contains {"file": w.file, "line": j.keys.services.line, "msg": sprintf("job %s's service %s `%s` is pulled by tag", [j.name, name, svc.image])} if {
	some w in input.workflows
	some j in w.jobs
	some name, svc in j.keys.services.value
	not regex.match(`@sha256:[0-9a-f]{64}$`, svc.image)
}
