package preflight

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/syntax"
)

// Where code runs (issue 41, class 5): on GitHub's machines, from pinned
// sources, with no event data steering later steps. Three rules:
//
//   - self-hosted-runner: every job that runs pull-request code or builds
//     what deploys runs on a GitHub-hosted runner. GitHub's "Secure use
//     reference" ("Hardening for self-hosted runners"): self-hosted runners
//     "should almost never be used for public repositories", since any pull
//     request can run code on them and what it leaves behind stays for the
//     next job; zizmor's self-hosted-runner audit flags the label, a runner
//     group, and a runs-on expression that could expand to one.
//   - unpinned-fetch: nothing fetched at run time runs unless it is pinned
//     to a version a registry checks, or to a digest: zizmor's
//     adhoc-packages, unpinned-images and unpinned-tools audits; pip's
//     "Secure installs" (==version, or --require-hashes); npm ci (the
//     lockfile); the Go modules reference ("go install pkg@version": the
//     checksum database verifies a version, never a branch or latest).
//     apt-get is left to the distribution: it installs from the runner
//     image's archive, whose signed index checks each package's hash,
//     though not its version.
//   - github-env: no event data reaches $GITHUB_ENV, $GITHUB_PATH or
//     $GITHUB_OUTPUT, by any route. zizmor's github-env audit: an attacker
//     who sets a variable (LD_PRELOAD, BASH_ENV, NODE_OPTIONS) or a PATH entry
//     runs code in every later step; its remedy, "stick with literal strings
//     and values computed solely from trusted sources". zizmor looks only in
//     workflows with dangerous triggers; here every workflow, since a push to
//     main carries a commit message and branch name as event data too.
const (
	ruleSelfHostedRunner = "self-hosted-runner"
	ruleUnpinnedFetch    = "unpinned-fetch"
	ruleGitHubEnv        = "github-env"

	srcSelfHosted = `zizmor self-hosted-runner; ` + srcSecureUse + `, "Hardening for self-hosted runners"`
	srcGitHubEnv  = `zizmor github-env; ` + srcSecureUse + `, "Understanding the risk of script injections"`
)

// ---- unpinned-fetch ----

var (
	digestImageRe = regexp.MustCompile(`@sha256:[0-9a-f]{64}$`)
	goVersionRe   = regexp.MustCompile(`^v\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$`)
	pipExactRe    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[^\]]*\])?\s*===?\s*[0-9][0-9A-Za-z.+!-]*$`)
	npmExactRe    = regexp.MustCompile(`^(?:@[^/\s]+/)?[^@\s]+@\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$`)
)

// interpreters run what they read: piped into them or handed by a process
// or command substitution, a download runs unchecked.
var interpreters = []string{"sh", "bash", "zsh", "dash", "ksh", "python", "python3", "perl", "ruby", "node", "pwsh", "eval", "source", ".", "tar", "unzip", "bsdtar"}

// fetches reads one script for code it fetches and runs unpinned.
func (c *wfChecker) fetches(s ciScript) {
	report := func(n syntax.Node, src, what, fix string) {
		c.add(fmt.Sprintf("%s (script line %d)", s.where, n.Pos().Line()), ruleUnpinnedFetch, src, what, fix)
	}
	const srcPipe = `zizmor adhoc-packages and unpinned-tools; ` + srcSecureUse + `, "Using third-party actions" (pin what runs)`
	downloads := map[string]int{} // file -> line, until a checksum is checked
	syntax.Walk(s.file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if n.Op != syntax.Pipe && n.Op != syntax.PipeAll {
				return true
			}
			parts := shFlatten(&syntax.Stmt{Cmd: n})
			for i, p := range parts {
				if !fetchesCode(p) {
					continue
				}
				for _, q := range parts[i+1:] {
					if a := shCommand(q); len(a) > 0 && slices.Contains(interpreters, a[0]) && runsStdin(a) {
						report(n, srcPipe, "a download is piped into `"+a[0]+"`: it runs whatever the server sends today", "download it to a file, check its sha256 (sha256sum -c), then run it; or install a pinned version from a registry")
						return false
					}
				}
			}
		case *syntax.CallExpr:
			a := stripSudo(shWords(n.Args))
			if len(a) == 0 {
				return true
			}
			if slices.Contains(interpreters, a[0]) && substitutesDownload(n) {
				report(n, srcPipe, "`"+a[0]+"` runs a download handed to it by substitution, unchecked", "download it to a file, check its sha256, then run it")
			}
			if f := downloadTarget(a); f != "" {
				downloads[f] = int(n.Pos().Line())
			}
			if isChecksum(a) {
				clear(downloads)
			}
			for _, w := range a {
				if _, ok := downloads[strings.TrimPrefix(w, "./")]; ok && w != "" && runsFile(a, w) {
					report(n, srcPipe, "`"+w+"` was downloaded and is run (or unpacked) without a checksum check", "check it first: echo \"<sha256>  "+w+"\" | sha256sum -c -")
					delete(downloads, strings.TrimPrefix(w, "./"))
				}
			}
			c.packageFetch(n, a, report)
		}
		return true
	})
}

// packageFetch: a package manager's install is pinned.
func (c *wfChecker) packageFetch(n *syntax.CallExpr, a []string, report func(syntax.Node, string, string, string)) {
	switch {
	case a[0] == "go" && len(a) > 1:
		args := a[1:]
		for len(args) > 1 && args[0] == "-C" {
			args = args[2:]
		}
		if len(args) == 0 || !slices.Contains([]string{"install", "run", "get"}, args[0]) {
			return
		}
		for _, w := range args[1:] {
			pkg, version, ok := strings.Cut(w, "@")
			if ok && !strings.HasPrefix(w, "-") && !goVersionRe.MatchString(version) {
				report(n, `Go modules reference, "go install" (a version the checksum database verifies); zizmor unpinned-tools`,
					"`go "+args[0]+" "+w+"` fetches whatever "+pkg+" is at `"+version+"` when CI runs", "name a release: "+pkg+"@vX.Y.Z")
			}
		}
	case a[0] == "pip" || a[0] == "pip3" || a[0] == "pipx" || a[0] == "uv" && len(a) > 1 && a[1] == "pip" ||
		(strings.HasPrefix(a[0], "python") && len(a) > 2 && a[1] == "-m" && a[2] == "pip"):
		c.pipFetch(n, a, report)
	case a[0] == "npm" || a[0] == "npx" || a[0] == "yarn" || a[0] == "pnpm":
		npmFetch(n, a, report)
	case a[0] == "docker" || a[0] == "podman":
		if len(a) > 2 && slices.Contains([]string{"run", "create", "pull"}, a[1]) {
			if img := dockerImage(a[2:]); img != "" && img != "\x00" && !digestImageRe.MatchString(img) {
				report(n, `zizmor unpinned-images`, "`"+a[0]+" "+a[1]+"` pulls `"+img+"` by tag, which its registry can move", "pin it by digest: "+img+"@sha256:<digest>")
			}
		}
	case a[0] == "sam" && len(a) > 1 && a[1] == "build" && slices.Contains(a, "--use-container"):
		i := slices.Index(a, "--build-image")
		if i < 0 || i+1 >= len(a) || !strings.Contains(a[i+1], "@sha256:") {
			report(n, `zizmor unpinned-images; SAM CLI "sam build" (--use-container pulls public.ecr.aws/sam/build-* by tag)`,
				"`sam build --use-container` pulls SAM's build image by a tag that moves", "add --build-image <image>@sha256:<digest>, or build without a container")
		}
	}
}

func (c *wfChecker) pipFetch(n *syntax.CallExpr, a []string, report func(syntax.Node, string, string, string)) {
	const src = `pip "Secure installs" (==version or --require-hashes); zizmor adhoc-packages`
	i := slices.Index(a, "install")
	if i < 0 {
		return
	}
	args := a[i+1:]
	if slices.Contains(args, "--require-hashes") {
		return
	}
	valued := []string{"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url", "--extra-index-url", "-t", "--target", "--prefix", "--root", "-f", "--find-links", "--python-version", "--platform", "--implementation", "--abi", "--upgrade-strategy", "--progress-bar", "--python"}
	for k := 0; k < len(args); k++ {
		w := args[k]
		switch {
		case w == "-r" || w == "--requirement":
			if k+1 < len(args) {
				c.requirementsFile(n, args[k+1], report)
			}
			k++
		case slices.Contains(valued, w):
			k++
		case strings.HasPrefix(w, "-"):
		case w == "\x00":
			report(n, src, "pip installs a package named at run time", "name it in .github/requirements.txt with ==version")
		case w == "." || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "/"):
		case !pipExactRe.MatchString(w) || strings.Contains(w, "*"):
			report(n, src, "`pip install "+w+"` takes whatever version the index serves today", "pin it: name==X.Y.Z (or install from .github/requirements.txt)")
		}
	}
}

// requirementsFile reads a requirements file of the repository: each line
// names an exact version (==, no wildcard) or carries a --hash.
func (c *wfChecker) requirementsFile(n syntax.Node, file string, report func(syntax.Node, string, string, string)) {
	const src = `pip "Secure installs" (==version or --require-hashes); zizmor adhoc-packages`
	if c.read == nil {
		c.read = map[string]bool{}
	}
	if c.read[file] {
		return
	}
	c.read[file] = true
	raw, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(file)))
	if err != nil {
		report(n, src, "cannot read "+file+" to check its pins", "keep the file in the repository")
		return
	}
	for i, l := range strings.Split(string(raw), "\n") {
		l = strings.TrimSpace(stripComment(l))
		if l == "" || strings.HasPrefix(l, "-") || strings.Contains(l, "--hash=") {
			continue
		}
		if !pipExactRe.MatchString(l) || strings.Contains(l, "*") {
			c.add(fmt.Sprintf("%s:%d", file, i+1), ruleUnpinnedFetch, src,
				"`"+l+"` lets pip take whatever matching version the index serves when CI runs", "pin an exact version: name==X.Y.Z")
		}
	}
}

// npmFetch: npm installs from the lockfile (npm ci); npx and its kin run a
// package that is installed or pinned to an exact version; yarn and pnpm
// keep the lockfile frozen.
func npmFetch(n *syntax.CallExpr, a []string, report func(syntax.Node, string, string, string)) {
	const src = `zizmor adhoc-packages; npm "npm ci" (installs exactly the lockfile)`
	sub := ""
	for _, w := range a[1:] {
		if !strings.HasPrefix(w, "-") {
			sub = w
			break
		}
	}
	frozen := slices.Contains(a, "--frozen-lockfile") || slices.Contains(a, "--immutable")
	switch {
	case a[0] == "npm" && slices.Contains([]string{"install", "i", "in", "add", "isntall", "update", "up", "upgrade"}, sub):
		report(n, src, "`npm "+sub+"` resolves versions anew instead of installing the lockfile", "use `npm ci` (add the package to package.json and the lockfile first)")
	case a[0] == "npx" || a[0] == "npm" && sub == "exec" || (a[0] == "pnpm" || a[0] == "yarn") && sub == "dlx":
		if slices.Contains(a, "--no") || slices.Contains(a, "--no-install") || slices.Contains(a, "--offline") {
			return
		}
		for _, w := range a[1:] {
			if !strings.HasPrefix(w, "-") && w != "exec" && w != "dlx" {
				if !npmExactRe.MatchString(w) {
					report(n, src, "`"+strings.Join(a[:min(len(a), 3)], " ")+"` downloads the latest "+w+" when it is not installed", "add it to package.json and run it after npm ci with --no-install, or pin name@X.Y.Z")
				}
				return
			}
		}
	case (a[0] == "yarn" || a[0] == "pnpm") && slices.Contains([]string{"add", "up", "upgrade", "update"}, sub),
		(a[0] == "yarn" || a[0] == "pnpm") && (sub == "" || sub == "install") && !frozen:
		report(n, src, "`"+strings.Join(a[:min(len(a), 3)], " ")+"` can resolve versions outside the lockfile", "install with the lockfile frozen (--frozen-lockfile / --immutable)")
	}
}

// dockerImage is the image argument of docker run/create/pull: the first
// word that is not a flag or a flag's value.
func dockerImage(args []string) string {
	valued := []string{"-e", "--env", "-v", "--volume", "-p", "--publish", "--name", "-w", "--workdir", "--entrypoint", "--network", "--net", "-u", "--user", "--platform", "--env-file", "--mount", "-l", "--label", "--add-host", "--cpus", "-m", "--memory", "--restart", "-h", "--hostname", "--pull", "--cidfile", "--device", "--dns", "--ulimit", "--tmpfs", "--cap-add", "--cap-drop", "--security-opt", "--shm-size", "--log-driver", "--log-opt", "--gpus", "-a", "--attach"}
	for k := 0; k < len(args); k++ {
		switch w := args[k]; {
		case slices.Contains(valued, w):
			k++
		case strings.HasPrefix(w, "-"):
		default:
			return w
		}
	}
	return ""
}

// shCommand is the words of the command a statement runs, sudo stripped.
func shCommand(s *syntax.Stmt) []string {
	if call, ok := s.Cmd.(*syntax.CallExpr); ok {
		return stripSudo(shWords(call.Args))
	}
	return nil
}

func stripSudo(a []string) []string {
	for len(a) > 0 && (a[0] == "sudo" || a[0] == "env" || a[0] == "exec" || a[0] == "command") {
		a = a[1:]
		for len(a) > 0 && (strings.HasPrefix(a[0], "-") || strings.Contains(a[0], "=")) {
			a = a[1:]
		}
	}
	return a
}

// runsStdin says whether an interpreter takes its program (or, for tar and
// unzip, the archive it unpacks) from standard input: no -c, -e or -m, and
// no file named, or the file "-".
func runsStdin(a []string) bool {
	if a[0] == "eval" || a[0] == "source" || a[0] == "." {
		return false // they take no stdin; substitutesDownload reads them
	}
	for k := 1; k < len(a); k++ {
		w := a[k]
		switch {
		case w == "-" || w == "-s" || w == "/dev/stdin":
			return true
		case w == "-c" || w == "-e" || w == "-m" || w == "-E":
			return false
		case (a[0] == "tar" || a[0] == "bsdtar") && (w == "-f" || w == "--file" || strings.HasPrefix(w, "--file=")):
			return k+1 < len(a) && a[k+1] == "-"
		case (a[0] == "tar" || a[0] == "bsdtar") && strings.HasPrefix(w, "-") && strings.HasSuffix(w, "f"):
			return k+1 < len(a) && a[k+1] == "-"
		case !strings.HasPrefix(w, "-") && a[0] != "tar" && a[0] != "bsdtar":
			return false // a script file
		}
	}
	return a[0] != "unzip" // unzip reads no stdin
}

// fetchesCode says whether a statement downloads (curl, wget) to stdout.
func fetchesCode(s *syntax.Stmt) bool {
	a := shCommand(s)
	return len(a) > 0 && (a[0] == "curl" || a[0] == "wget")
}

// substitutesDownload says whether a call gets a download through a command
// or process substitution: bash <(curl ...), sh -c "$(curl ...)".
func substitutesDownload(call *syntax.CallExpr) bool {
	found := false
	for _, w := range call.Args[1:] {
		syntax.Walk(w, func(n syntax.Node) bool {
			var stmts []*syntax.Stmt
			switch n := n.(type) {
			case *syntax.CmdSubst:
				stmts = n.Stmts
			case *syntax.ProcSubst:
				stmts = n.Stmts
			}
			for _, s := range stmts {
				for _, p := range shFlatten(s) {
					found = found || fetchesCode(p)
				}
			}
			return !found
		})
	}
	return found
}

// downloadTarget is the file a curl or wget call writes, "" for stdout.
func downloadTarget(a []string) string {
	if a[0] != "curl" && a[0] != "wget" {
		return ""
	}
	var url string
	for k := 1; k < len(a); k++ {
		switch w := a[k]; {
		case (a[0] == "curl" && (w == "-o" || w == "--output")) || (a[0] == "wget" && (w == "-O" || w == "--output-document")):
			if k+1 < len(a) && a[k+1] != "-" {
				return strings.TrimPrefix(a[k+1], "./")
			}
			return ""
		case strings.Contains(w, "://"):
			url = w
		}
	}
	if url != "" && (a[0] == "wget" || slices.Contains(a, "-O") || slices.Contains(a, "--remote-name")) {
		return path.Base(url)
	}
	return ""
}

// isChecksum says whether a call checks a file against a known digest or
// signature.
func isChecksum(a []string) bool {
	switch a[0] {
	case "sha256sum", "sha512sum", "sha384sum", "b2sum":
		return slices.Contains(a, "-c") || slices.Contains(a, "--check")
	case "shasum":
		return slices.Contains(a, "-c") || slices.Contains(a, "--check")
	case "gpg", "gpgv":
		return slices.Contains(a, "--verify") || a[0] == "gpgv"
	case "cosign":
		return len(a) > 1 && strings.HasPrefix(a[1], "verify")
	case "minisign":
		return slices.Contains(a, "-V")
	}
	return false
}

// runsFile says whether a call runs, makes runnable or unpacks file w.
func runsFile(a []string, w string) bool {
	if a[0] == w || a[0] == "./"+strings.TrimPrefix(w, "./") {
		return true
	}
	switch a[0] {
	case "chmod", "install", "dpkg", "rpm", "apt", "apt-get", "tar", "unzip", "bsdtar", "sh", "bash", "python", "python3", "source", ".":
		return true
	}
	return false
}

// ---- github-env ----

// eventDataRe matches, inside an expression, the contexts whose values a
// pull request or a push's author chooses: github.event (titles, bodies,
// branch and commit names), github.head_ref, the whole github context, and
// inputs (of a dispatch or a call).
var eventDataRe = regexp.MustCompile(`\bgithub\s*(?:\.\s*(?:event|head_ref)\b|\[\s*'(?:event|head_ref)'\s*\])|toJSON\s*\(\s*github\s*\)|\binputs\s*[.\[]`)

// eventEnv are the default variables of a runner that carry event data
// (GitHub "Variables reference", default environment variables):
// GITHUB_HEAD_REF is the pull request's branch name, GITHUB_EVENT_PATH the
// event's payload.
var eventEnv = []string{"GITHUB_HEAD_REF", "GITHUB_EVENT_PATH"}

// envFiles are the files whose lines GitHub reads into later steps
// (workflow commands, "Environment files").
var envFiles = []string{"GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT"}

// eventScript is a run: script as the shell will get it, an expression of
// event data kept as the variable __event_data so that its route can be
// followed, any other expression a plain word.
func eventScript(run string) string {
	return exprRe.ReplaceAllStringFunc(run, func(e string) string {
		if eventDataRe.MatchString(e) {
			return "${__event_data}"
		}
		return "_expr_"
	})
}

// githubEnv follows event data through each run: step of w, and through
// actions/github-script's script, to the environment files.
func (c *wfChecker) githubEnv(w *workflow) {
	const fix = "do not write event data to an environment file: pass it to the step that needs it through env: and read it there as \"$NAME\""
	_, top := yamlEntry(w.root, "env")
	for _, name := range w.order {
		j := w.Jobs[name]
		_, jenv := yamlEntry(j.node, "env")
		for i, s := range j.Steps {
			tainted := map[string]bool{"__event_data": true}
			for _, n := range eventEnv {
				tainted[n] = true
			}
			env := map[string]string{}
			for _, m := range []*yaml.Node{top, jenv} {
				if m != nil && m.Kind == yaml.MappingNode {
					for k := 0; k+1 < len(m.Content); k += 2 {
						env[m.Content[k].Value] = m.Content[k+1].Value
					}
				}
			}
			for k, v := range s.Env {
				env[k] = v
			}
			for changed := true; changed; {
				changed = false
				for k, v := range env {
					if tainted[k] {
						continue
					}
					for _, e := range exprRe.FindAllString(v, -1) {
						if eventDataRe.MatchString(e) || refsTaintedEnv(e, tainted) {
							tainted[k], changed = true, true
						}
					}
				}
			}
			where := w.whereStep(j, i)
			if s.action() == "actions/github-script" {
				script := s.With["script"]
				if githubScriptSinkRe.MatchString(script) && (strings.Contains(script, "context.payload") || eventDataRe.MatchString(script) || refsProcessEnv(script, tainted)) {
					c.add(where, ruleGitHubEnv, srcGitHubEnv, "the script exports event data (context.payload, or an env: of it) through core.exportVariable, addPath or setOutput", fix)
				}
			}
			if s.Run == "" {
				continue
			}
			f, err := parseShell(eventScript(s.Run), "")
			if err != nil {
				continue // runScripts reports it
			}
			for _, line := range eventRoutes(f, tainted) {
				c.add(fmt.Sprintf("%s (script line %d)", where, line), ruleGitHubEnv, srcGitHubEnv,
					"event data reaches $GITHUB_ENV, $GITHUB_PATH or $GITHUB_OUTPUT: a pull request's title or branch name could set LD_PRELOAD, PATH or an output that later steps run", fix)
			}
		}
	}
}

var githubScriptSinkRe = regexp.MustCompile(`core\s*\.\s*(?:exportVariable|addPath|setOutput)\s*\(`)

func refsTaintedEnv(expr string, tainted map[string]bool) bool {
	for _, m := range regexp.MustCompile(`\benv\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)`).FindAllStringSubmatch(expr, -1) {
		if tainted[m[1]] {
			return true
		}
	}
	return false
}

func refsProcessEnv(script string, tainted map[string]bool) bool {
	for _, m := range regexp.MustCompile(`process\s*\.\s*env\s*(?:\.\s*([A-Za-z_][A-Za-z0-9_]*)|\[\s*['"]([^'"]+)['"]\s*\])`).FindAllStringSubmatch(script, -1) {
		if tainted[m[1]+m[2]] {
			return true
		}
	}
	return false
}

// eventRoutes are the lines of a script where tainted data is written to an
// environment file. The reading is deliberately coarse, as the audit
// advises: a statement that mentions tainted data taints every variable it
// assigns (x=..., read, for, printf -v, mapfile) and every file it writes;
// a variable assigned from an environment file's name, and a descriptor
// opened on one (exec 3>>"$GITHUB_ENV"), name it too. A statement writes to
// an environment file by a redirection (>, >>, a heredoc's cat), or by naming
// it as an argument (tee -a, cp, dd of=); in a pipeline, the data of any
// earlier part flows into it. `env` or `printenv` alone dumps every
// variable, GITHUB_HEAD_REF among them.
func eventRoutes(f *syntax.File, tainted map[string]bool) []int {
	sinks := map[string]bool{}
	for _, n := range envFiles {
		sinks[n] = true
	}
	files, fds := map[string]bool{}, map[string]bool{}
	var stmts []*syntax.Stmt
	syntax.Walk(f, func(n syntax.Node) bool {
		if s, ok := n.(*syntax.Stmt); ok {
			stmts = append(stmts, s)
		}
		return true
	})
	// mentions says whether n reads one of the variables in set.
	mentions := func(n syntax.Node, set map[string]bool) bool {
		found := false
		syntax.Walk(n, func(n syntax.Node) bool {
			if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil && set[p.Param.Value] {
				found = true
			}
			return !found
		})
		return found
	}
	// data says whether n reads event data: a tainted variable, a file
	// written with it, or the whole environment (env, printenv, export -p,
	// declare -p, set), which holds GITHUB_HEAD_REF.
	data := func(n syntax.Node) bool {
		found := mentions(n, tainted)
		syntax.Walk(n, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Word:
				found = found || files[shWord(n)]
			case *syntax.CallExpr:
				a := shWords(n.Args)
				found = found || slices.Equal(a, []string{"env"}) || slices.Equal(a, []string{"printenv"}) || slices.Equal(a, []string{"set"}) ||
					(len(a) == 2 && (a[0] == "export" || a[0] == "declare") && strings.HasPrefix(a[1], "-p"))
			case *syntax.DeclClause:
				found = found || (len(n.Args) == 1 && n.Args[0].Naked && n.Args[0].Name != nil && n.Args[0].Name.Value == "-p")
			}
			return !found
		})
		return found
	}
	for changed := true; changed; {
		changed = false
		for _, s := range stmts {
			isData, isSink := data(s), mentions(s, sinks)
			syntax.Walk(s, func(n syntax.Node) bool {
				var names []string
				switch n := n.(type) {
				case *syntax.Assign:
					if n.Name != nil {
						names = append(names, n.Name.Value)
					}
				case *syntax.ForClause:
					if wi, ok := n.Loop.(*syntax.WordIter); ok && wi.Name != nil {
						names = append(names, wi.Name.Value)
					}
				case *syntax.CallExpr:
					a := shWords(n.Args)
					if len(a) > 1 && (a[0] == "read" || a[0] == "mapfile" || a[0] == "readarray") {
						for _, w := range a[1:] {
							if makeVarRe.MatchString(w) {
								names = append(names, w)
							}
						}
					}
					if i := slices.Index(a, "-v"); len(a) > 0 && a[0] == "printf" && i >= 0 && i+1 < len(a) {
						names = append(names, a[i+1])
					}
				case *syntax.Redirect:
					if isData && n.Word != nil && (n.Op == syntax.RdrOut || n.Op == syntax.AppOut || n.Op == syntax.RdrClob) {
						if w := shWord(n.Word); w != "\x00" && !files[w] {
							files[w], changed = true, true
						}
					}
					if isSink && n.N != nil && mentions(n.Word, sinks) && !fds[n.N.Value] {
						fds[n.N.Value], changed = true, true
					}
				}
				for _, name := range names {
					if isData && !tainted[name] {
						tainted[name], changed = true, true
					}
				}
				if a, ok := n.(*syntax.Assign); ok && a.Name != nil && a.Value != nil && mentions(a.Value, sinks) && !sinks[a.Name.Value] {
					sinks[a.Name.Value], changed = true, true
				}
				return true
			})
		}
	}
	writes := func(s *syntax.Stmt) bool {
		for _, r := range s.Redirs {
			switch r.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
				if mentions(r.Word, sinks) {
					return true
				}
			case syntax.DplOut:
				if fds[shWord(r.Word)] {
					return true
				}
			}
		}
		// A command that writes to the files its arguments name.
		if a := shCommand(s); len(a) > 1 && slices.Contains([]string{"tee", "cp", "mv", "dd", "install", "ln", "rsync", "sed", "awk"}, a[0]) {
			for _, w := range s.Cmd.(*syntax.CallExpr).Args[1:] {
				if mentions(w, sinks) {
					return true
				}
			}
		}
		return false
	}
	var lines []int
	seen := map[int]bool{}
	report := func(n syntax.Node) {
		if l := int(n.Pos().Line()); !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	for _, s := range stmts {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
			parts := shFlatten(s)
			for i, p := range parts {
				if writes(p) && slices.ContainsFunc(parts[:i+1], func(q *syntax.Stmt) bool { return data(q) }) {
					report(s)
				}
			}
			continue
		}
		if writes(s) && data(s) {
			report(s)
		}
	}
	return lines
}
