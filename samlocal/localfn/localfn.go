// Package localfn builds the Go functions of a SAM template for this machine
// as sam build builds them (Build) and prepares them to run as SAM CLI
// would run them: each function's environment resolved by SAM's rule from
// an env-vars file (samtemplate.ResolveEnv), its timeout from the template,
// and, where its environment names a table of the template, a dynalite
// that holds every table of the template and keeps its data under DataDir,
// or a moto_server in memory when a table has a stream (dynamoemu.Local). A function that reports to CodeDeploy (a PreTraffic
// hook) never gets the shell's credentials and reports to a local recorder
// (codeDeploy), not to AWS. samlocal's commands start from it.
package localfn

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/plantstore/plantstore/samlocal/dynamoemu"
	"github.com/plantstore/plantstore/samlocal/lambdaemu"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// Config says where everything is.
type Config struct {
	Template  string            // the SAM template, e.g. template.yaml
	Overrides map[string]string // parameter values (--parameter-overrides)
	EnvFile   string            // SAM's --env-vars format, e.g. events/env.json; "" for none
	DataDir   string            // where the local dynalite keeps its data
	Seed      string            // items for the local tables (dynamoemu.ReadSeed); "" for none
	BuildDir  string            // where Build wrote the executables
	// Bootstrap, when set, is the path of a function's executable in place
	// of Build's under BuildDir (tests hand prebuilt ones).
	Bootstrap func(function string) string
	LookupEnv func(string) (string, bool) // the shell's environment
	Log       io.Writer                   // where the local dynalite and the CodeDeploy recorder say where they run, and the recorder what it was told

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
// DynamoDB and the CodeDeploy recorder when one of them needs it. Close
// stops them.
func Prepare(ctx context.Context, cfg Config, functions []string) (*Set, error) {
	tpl, err := cfg.Load()
	if err != nil {
		return nil, err
	}
	return PrepareTemplate(ctx, tpl, cfg, functions)
}

// Load reads the template with the parameter overrides.
func (cfg Config) Load() (*samtemplate.Template, error) {
	tpl, err := samtemplate.Load(cfg.Template)
	if err != nil {
		return nil, err
	}
	tpl.Overrides = cfg.Overrides
	return tpl, nil
}

// PrepareTemplate is Prepare with the template already read.
func PrepareTemplate(ctx context.Context, tpl *samtemplate.Template, cfg Config, functions []string) (*Set, error) {
	local := &dynamoemu.Local{Dir: cfg.DataDir, Log: cfg.Log}
	if cfg.Seed != "" {
		var err error
		if local.Seed, err = dynamoemu.ReadSeed(cfg.Seed); err != nil {
			return nil, err
		}
	}
	return prepare(ctx, tpl, cfg, functions, local, &codeDeploy{log: cfg.Log})
}

// tables are the template's tables, as the local DynamoDB creates them.
func tables(tpl *samtemplate.Template) ([]*dynamodb.CreateTableInput, error) {
	ts, err := tpl.Tables()
	if err != nil {
		return nil, err
	}
	var out []*dynamodb.CreateTableInput
	for _, t := range ts {
		in, err := dynamoemu.TableInput(t.Name, t.Type, t.Props)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.ID, err)
		}
		out = append(out, in)
	}
	return out, nil
}

// Reload prepares the functions again, from tpl and cfg as they are now
// (an edited template or env file, new bootstraps), on the same local
// DynamoDB and CodeDeploy recorder. Closing the old Set stops them: close
// the new one.
func (s *Set) Reload(ctx context.Context, tpl *samtemplate.Template, cfg Config, functions []string) (*Set, error) {
	return prepare(ctx, tpl, cfg, functions, s.local, s.deploy)
}

func prepare(ctx context.Context, tpl *samtemplate.Template, cfg Config, functions []string, local *dynamoemu.Local, deploy *codeDeploy) (*Set, error) {
	file := samtemplate.EnvFile{}
	if cfg.EnvFile != "" {
		var err error
		if file, err = samtemplate.ReadEnvFile(cfg.EnvFile); err != nil {
			return nil, err
		}
	}
	fns, _, err := tpl.GoFunctions()
	if err != nil {
		return nil, err
	}
	ts, err := tables(tpl)
	if err != nil {
		return nil, err
	}
	local.SetTables(ts)
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
		f := slices.IndexFunc(fns, func(f samtemplate.Function) bool { return f.ID == fn })
		if f < 0 {
			s.Close()
			return nil, fmt.Errorf("function %s not found in template; possible options: %v", fn, samtemplate.FunctionIDs(fns))
		}
		spec := lambdaemu.Spec{Bootstrap: cfg.ExecutableOf(fns[f]), Env: samtemplate.Environ(env), Timeout: tpl.FunctionTimeout(fn)}
		if fn == cfg.Debug {
			d := cfg.DebugServer
			spec.Debug = &d
		}
		s.Specs[fn] = spec
	}
	return s, nil
}

// ExecutableOf is where fn's executable is: Bootstrap's, or Build's
// under BuildDir.
func (cfg Config) ExecutableOf(fn samtemplate.Function) string {
	if cfg.Bootstrap != nil {
		return cfg.Bootstrap(fn.ID)
	}
	return Executable(cfg.BuildDir, fn)
}

// Close stops the local DynamoDB and the CodeDeploy recorder, if they were
// started.
func (s *Set) Close() {
	s.local.Stop()
	s.deploy.stop()
}

// DynamoDB is the local emulator with the template's tables, started if it
// is not running: the stream poller reads it (samlocal/streams).
func (s *Set) DynamoDB(ctx context.Context) (*dynamoemu.Server, error) {
	return s.local.Start(ctx)
}

// Names lists the logical IDs of the prepared functions, sorted.
func (s *Set) Names() []string { return slices.Sorted(maps.Keys(s.Specs)) }
