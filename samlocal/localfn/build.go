package localfn

import (
	"bytes"
	"context"
	"debug/elf"
	"debug/macho"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"

	"github.com/plantstore/plantstore/samlocal/childproc"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// Executable is where Build writes fn's executable under dir.
func Executable(dir string, fn samtemplate.Function) string {
	return filepath.Join(dir, fn.ID, fn.Executable)
}

// Seed copies each function's last executable (last(fn); a missing one is
// skipped) to where Build writes it under dir, a new folder. The go command
// uses a target whose build ID holds the action ID it would build as built
// (cmd/go/internal/work/buildid.go, useCache), so a build into a seeded
// folder links only the functions whose code changed. A copy, not a hard
// link: the executables of the generation that serves stay as they are.
func Seed(dir string, fns []samtemplate.Function, last func(samtemplate.Function) string) error {
	for _, fn := range fns {
		if err := SeedFile(Executable(dir, fn), last(fn)); err != nil {
			return err
		}
	}
	return nil
}

// SeedFile copies the executable at from (when there is one) to the new
// path to, where a build is about to write: Seed for one file.
func SeedFile(to, from string) error {
	src, err := os.Open(from)
	if err != nil {
		return nil // nothing to seed: the build links it
	}
	defer src.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	return errors.Join(err, dst.Close())
}

// Build builds each function for this machine into dir/<LogicalId>/, as
// sam build would build it for Lambda (aws-lambda-builders), and returns
// the builds' output. The function named debug, if any, is built for a
// debugger.
//
//   - BuildMethod makefile (workflows/custom_make/actions.py
//     CustomMakeAction.execute): `make --makefile <MakefileDir>/Makefile
//     build-<LogicalId>` in the function's CodeUri, with ARTIFACTS_DIR, an
//     absolute path, in the environment. sam build runs it in a copy of
//     CodeUri; samlocal runs it in place, as --build-in-source does. Its one
//     addition is GOOS and GOARCH of this machine on make's command line,
//     for a Makefile that lets them pick the platform; a debug build gets
//     SAM_BUILD_MODE=debug in the environment, as sam build's debug mode.
//   - BuildMethod go1.x, or Runtime go1.x (workflows/go_modules/builder.py
//     GoModulesBuilder.build): `go build [-trimpath] [-gcflags all=-N -l]
//     -o <ARTIFACTS_DIR>/<bootstrap or Handler> .` in CodeUri with GOOS
//     and GOARCH set (this machine's, where sam build sets linux and the
//     function's architecture); when that fails, once more on
//     CodeUri/Handler, as the builder's fallback does.
//
// Each build must leave an executable for this machine (checkBinary): a
// Makefile that fixes GOARCH=arm64 on an amd64 machine is an error naming
// both, not an exec format error later.
//
// make reads its command line as syntax and expands "$" in variables it
// imports from the environment, and the recipe's shell splits the rest:
// only logical IDs (samtemplate.IsLogicalID) and plain paths (plainPath)
// reach it; anything else is refused, naming it and the rule, before make
// runs.
//
// When ctx ends, the build is interrupted as the terminal's Ctrl-C would
// interrupt it (childproc.Run), no further build starts, and Build returns
// once the build has exited: nothing writes to dir after that. The go
// command leaves its work folder when interrupted (golang/go#25808), so it
// keeps that under dir (GOTMPDIR), removed once the builds are done.
func Build(ctx context.Context, dir string, fns []samtemplate.Function, debug string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for _, fn := range fns {
		if !samtemplate.IsLogicalID(fn.ID) {
			return "", fmt.Errorf("build %q: not a logical ID (%s), which make would read as syntax", fn.ID, samtemplate.LogicalIDRule)
		}
		if out := filepath.Join(dir, fn.ID); fn.BuildMethod == "makefile" && !plainPath.MatchString(out) {
			return "", fmt.Errorf("build %s: the folder %q holds a character that make or the shell reads as syntax; ARTIFACTS_DIR takes only %s (TMPDIR=... picks another temporary folder)", fn.ID, out, plainPath)
		}
	}
	goTmp := filepath.Join(dir, ".gotmp") // no logical ID: IDs are alphanumeric
	if err := os.MkdirAll(goTmp, 0o700); err != nil {
		return "", err
	}
	defer os.RemoveAll(goTmp)
	var out bytes.Buffer
	for _, fn := range fns {
		if err := ctx.Err(); err != nil { // stopped: no further build
			return out.String(), fmt.Errorf("build %s: %w", fn.ID, err)
		}
		artifacts := filepath.Join(dir, fn.ID)
		if err := os.MkdirAll(artifacts, 0o755); err != nil {
			return out.String(), err
		}
		env := append(os.Environ(), "GOTMPDIR="+goTmp)
		if fn.ID == debug {
			env = append(env, "SAM_BUILD_MODE=debug")
		}
		var err error
		if fn.BuildMethod == "makefile" {
			err = makeBuild(ctx, fn, artifacts, env, &out)
		} else {
			err = goBuild(ctx, fn, artifacts, env, fn.ID == debug, &out)
		}
		if err == nil {
			err = checkBinary(filepath.Join(artifacts, fn.Executable))
		}
		if err != nil {
			os.Remove(artifacts) // made above: gone again when the build wrote nothing
			return out.String(), fmt.Errorf("build %s: %w", fn.ID, err)
		}
	}
	return out.String(), nil
}

func makeBuild(ctx context.Context, fn samtemplate.Function, artifacts string, env []string, out *bytes.Buffer) error {
	makefile := filepath.Join(fn.MakefileDir, "Makefile")
	if _, err := os.Stat(makefile); err != nil {
		return fmt.Errorf("no Makefile at %s (BuildMethod makefile)", makefile)
	}
	args := []string{"--no-print-directory", "-s", "--makefile", makefile, "build-" + fn.ID, "GOOS=" + runtime.GOOS, "GOARCH=" + runtime.GOARCH}
	cmd := exec.Command("make", args...)
	cmd.Dir = fn.CodeDir
	cmd.Env = append(env, "ARTIFACTS_DIR="+artifacts)
	cmd.Stdout, cmd.Stderr = out, out
	return childproc.Run(ctx, cmd)
}

func goBuild(ctx context.Context, fn samtemplate.Function, artifacts string, env []string, debug bool, out *bytes.Buffer) error {
	args := []string{"build"}
	if fn.TrimGoPath {
		args = append(args, "-trimpath")
	}
	if debug {
		args = append(args, "-gcflags", "all=-N -l")
	}
	args = append(args, "-o", filepath.Join(artifacts, fn.Executable))
	env = append(env, "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	run := func(pkg string) error {
		cmd := exec.Command("go", append(args, pkg)...)
		cmd.Dir, cmd.Env = fn.CodeDir, env
		cmd.Stdout, cmd.Stderr = out, out
		return childproc.Run(ctx, cmd)
	}
	err := run(".")
	if err != nil && ctx.Err() == nil && fn.Handler != "" && fn.Handler != fn.Executable {
		// _attempt_to_build_from_handler: CodeUri is the module's root and
		// Handler the main package's folder below it.
		err = run("./" + filepath.ToSlash(filepath.Clean(fn.Handler)))
	}
	return err
}

// checkBinary says why path is not an executable this machine runs.
func checkBinary(path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("the build wrote no %s: the function's executable must be there", path)
	}
	want := runtime.GOOS + "/" + runtime.GOARCH
	got := ""
	if f, err := elf.Open(path); err == nil {
		got = "linux/" + map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64", elf.EM_386: "386", elf.EM_ARM: "arm"}[f.Machine]
		f.Close()
	} else if f, err := macho.Open(path); err == nil {
		got = "darwin/" + map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}[f.Cpu]
		f.Close()
	} else {
		return nil // another format (a script, Windows): let the OS decide
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" || got == want {
		return nil
	}
	return fmt.Errorf("the build wrote %s for %s, and this machine runs %s: let GOOS and GOARCH on make's command line (samlocal passes this machine's) pick the platform", path, got, want)
}

// plainPath is what Build hands make as ARTIFACTS_DIR: characters that
// neither make (a "$") nor the recipe's shell (spaces, quotes, ";", "~",
// globs ...) reads as syntax.
var plainPath = regexp.MustCompile(`^[A-Za-z0-9/._+-]+$`)
