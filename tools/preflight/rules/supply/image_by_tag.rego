# METADATA
# title: Images run at run time are pinned by digest
# related_resources:
#   - ref: https://docs.zizmor.sh/audits/#unpinned-images
# custom:
#   id: PS-SUP-003
#   danger: a container a script pulls by tag (docker run, sam build --use-container) runs whatever its registry serves under that tag when CI runs.
#   fix: pin the image by digest (image@sha256:<digest>), or build without a container
package preflight.rules.image_by_tag

import data.preflight.lib.shell

finding(sc, s, what) := {"file": sc.file, "line": s.line, "msg": sprintf("%s: %s", [shell.where(sc), what])}

valued := {"-e", "--env", "-v", "--volume", "-p", "--publish", "--name", "-w", "--workdir", "--entrypoint", "--network", "--net", "-u", "--user", "--platform", "--env-file", "--mount", "-l", "--label", "--add-host", "--cpus", "-m", "--memory", "--restart", "-h", "--hostname", "--pull", "--cidfile", "--device", "--dns", "--ulimit", "--tmpfs", "--cap-add", "--cap-drop", "--security-opt", "--shm-size", "--log-driver", "--log-opt", "--gpus", "-a", "--attach"}

digest(img) if regex.match(`@sha256:[0-9a-f]{64}$`, img)

deny contains finding(sc, s, sprintf("`%s %s` pulls `%s` by tag, which its registry can move", [a[0], a[1], img])) if {
	some sc in input.scripts
	some s in sc.stmts
	a := shell.command(s)
	a[0] in {"docker", "podman"}
	a[1] in {"run", "create", "pull"}
	img := [w | some k, w in a; k > 1; not startswith(w, "-"); not a[k - 1] in valued][0]
	not shell.computed(img)
	not digest(img)
}

# SAM CLI, "sam build": --use-container pulls public.ecr.aws/sam/build-*
# by tag unless --build-image names one.
deny contains finding(sc, s, "`sam build --use-container` pulls SAM's build image by a tag that moves") if {
	some sc in input.scripts
	some s in sc.stmts
	a := shell.command(s)
	a[0] == "sam"
	a[1] == "build"
	"--use-container" in a
	not build_image_pinned(a)
}

build_image_pinned(a) if {
	some k, w in a
	w == "--build-image"
	contains(a[k + 1], "@sha256:")
}
