// Package localfn prepares functions of template.yaml to run on this machine
// as SAM CLI would run them: each function's environment resolved by SAM's
// rule from an env-vars file (samtemplate.ResolveEnv), its timeout from the
// template, and, where createplant's resolved AWS_ENDPOINT_URL_DYNAMODB is
// empty, a dynalite that keeps its data under DataDir (dynamoemu.Local). The
// PreTraffic hook, the function that reports to CodeDeploy, never gets the
// shell's credentials and reports to a local recorder (codeDeploy), not to
// AWS. make invoke, make start-api and make start-lambda start from it.
package localfn

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"

	"github.com/plantstore/plantstore/internal/childproc"
	"github.com/plantstore/plantstore/internal/dynamoemu"
	"github.com/plantstore/plantstore/internal/lambdaemu"
	"github.com/plantstore/plantstore/tools/samtemplate"
)

// Config says where everything is.
type Config struct {
	Template  string                       // the SAM template, e.g. template.yaml
	EnvFile   string                       // SAM's --env-vars format, e.g. events/env.json
	DataDir   string                       // where the local dynalite keeps its data
	Bootstrap func(function string) string // the path of a function's bootstrap
	LookupEnv func(string) (string, bool)  // the shell's environment
	Log       io.Writer                    // where the local dynalite and the CodeDeploy recorder say where they run, and the recorder what it was told

	// Debug names a function to run under Delve (make ... DEBUG=<Function>),
	// with DebugServer's dlv and address; its bootstrap must be a debug build
	// (Build makes one for it).
	Debug       string
	DebugServer lambdaemu.Debug
}

// Set is the prepared functions.
type Set struct {
	Template *samtemplate.Template
	Env      map[string]map[string]string // each function's resolved environment
	Specs    map[string]lambdaemu.Spec    // how to run each one
	local    *dynamoemu.Local
	deploy   *codeDeploy
}

// Prepare resolves the functions named (logical ids) and starts the local
// dynalite and the CodeDeploy recorder when one of them needs it. Close
// stops them.
func Prepare(ctx context.Context, cfg Config, functions []string) (*Set, error) {
	tpl, err := samtemplate.Load(cfg.Template)
	if err != nil {
		return nil, err
	}
	return PrepareTemplate(ctx, tpl, cfg, functions)
}

// PrepareTemplate is Prepare with the template already read.
func PrepareTemplate(ctx context.Context, tpl *samtemplate.Template, cfg Config, functions []string) (*Set, error) {
	return prepare(ctx, tpl, cfg, functions, &dynamoemu.Local{Dir: cfg.DataDir, Log: cfg.Log}, &codeDeploy{log: cfg.Log})
}

// Reload prepares the functions again, from tpl and cfg as they are now
// (an edited template or env file, new bootstraps), on the same local
// dynalite and CodeDeploy recorder. Closing the old Set stops them: close
// the new one.
func (s *Set) Reload(ctx context.Context, tpl *samtemplate.Template, cfg Config, functions []string) (*Set, error) {
	return prepare(ctx, tpl, cfg, functions, s.local, s.deploy)
}

func prepare(ctx context.Context, tpl *samtemplate.Template, cfg Config, functions []string, local *dynamoemu.Local, deploy *codeDeploy) (*Set, error) {
	file, err := samtemplate.ReadEnvFile(cfg.EnvFile)
	if err != nil {
		return nil, err
	}
	session := samtemplate.SessionFromEnv(func(k string) string { v, _ := cfg.LookupEnv(k); return v })
	// Every environment is read first: one the rules refuse (a name
	// Lambda refuses, a NUL) stops here, before anything starts.
	envs := map[string]map[string]string{}
	for _, fn := range functions {
		if envs[fn], err = tpl.ResolveEnv(fn, cfg.LookupEnv, file, session); err != nil {
			return nil, err
		}
	}
	s := &Set{Template: tpl, Env: map[string]map[string]string{}, Specs: map[string]lambdaemu.Spec{}, local: local, deploy: deploy}
	for _, fn := range functions {
		env := envs[fn]
		err := s.local.Provide(ctx, env)
		if err == nil {
			err = s.deploy.provide(env)
		}
		if err != nil {
			s.Close()
			return nil, err
		}
		s.Env[fn] = env
		spec := lambdaemu.Spec{Bootstrap: cfg.Bootstrap(fn), Env: samtemplate.Environ(env), Timeout: tpl.FunctionTimeout(fn)}
		if fn == cfg.Debug {
			d := cfg.DebugServer
			spec.Debug = &d
		}
		s.Specs[fn] = spec
	}
	return s, nil
}

// Close stops the local dynalite and the CodeDeploy recorder, if they were
// started.
func (s *Set) Close() {
	s.local.Stop()
	s.deploy.stop()
}

// Build builds each function's bootstrap for this machine into
// dir/<Function>/bootstrap with the Makefile's build-<Function> targets (the
// recipe sam build runs) in root, and returns the build's output.
// The function named debug, if any, is built for a debugger (DEBUG_BUILD=1).
//
// make reads its command line as syntax: an argument holding "=" is a
// variable assignment, and a "$" in a variable's value is expanded (passing
// the value in the environment instead changes nothing: make imports it as
// a variable too), and the recipe's shell splits and expands the rest. So
// only plain words reach it: each function must be a logical ID
// (samtemplate.IsLogicalID) and each ARTIFACTS_DIR a plain path
// (plainPath); anything else is refused, naming it and the rule, before
// make runs.
//
// When ctx ends, make is interrupted as the terminal's Ctrl-C would
// interrupt it (childproc.Run), no further function's make starts, and
// Build returns once make has exited: nothing writes to dir after that. The go command leaves its work folder
// when interrupted (golang/go#25808), so it keeps that under dir
// (GOTMPDIR), removed once make has exited.
func Build(ctx context.Context, root, dir string, functions []string, debug string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for _, fn := range functions {
		if !samtemplate.IsLogicalID(fn) {
			return "", fmt.Errorf("build %q: not a logical ID (%s), which make would read as syntax", fn, samtemplate.LogicalIDRule)
		}
		if out := filepath.Join(dir, fn); !plainPath.MatchString(out) {
			return "", fmt.Errorf("build %s: the folder %q holds a character that make or the shell reads as syntax; ARTIFACTS_DIR takes only %s (TMPDIR=... picks another temporary folder)", fn, out, plainPath)
		}
	}
	goTmp := filepath.Join(dir, ".gotmp") // no logical ID: IDs are alphanumeric
	if err := os.MkdirAll(goTmp, 0o700); err != nil {
		return "", err
	}
	defer os.RemoveAll(goTmp)
	var out bytes.Buffer
	for _, fn := range functions {
		if err := ctx.Err(); err != nil { // stopped: no further make
			return out.String(), fmt.Errorf("build %s: %w", fn, err)
		}
		args := []string{"--no-print-directory", "-s", "-C", root, "build-" + fn, "ARTIFACTS_DIR=" + filepath.Join(dir, fn), "GOARCH=" + runtime.GOARCH}
		if fn == debug {
			args = append(args, "DEBUG_BUILD=1")
		}
		cmd := exec.Command("make", args...)
		cmd.Env = append(os.Environ(), "GOTMPDIR="+goTmp)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := childproc.Run(ctx, cmd); err != nil {
			return out.String(), fmt.Errorf("build %s: %w", fn, err)
		}
	}
	return out.String(), nil
}

// plainPath is what Build hands make as ARTIFACTS_DIR: characters that
// neither make (a "$") nor the recipe's shell (spaces, quotes, ";", "~",
// globs ...) reads as syntax.
var plainPath = regexp.MustCompile(`^[A-Za-z0-9/._+-]+$`)
