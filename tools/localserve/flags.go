package localserve

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/plantstore/plantstore/internal/devserver"
	"github.com/plantstore/plantstore/internal/lambdaemu"
	"github.com/plantstore/plantstore/tools/localfn"
)

// Flags are the flags that make start-api and make start-lambda share.
type Flags struct {
	Template, EnvFile, Bootstraps, DataDir string
	Watch                                  bool
	AllowHosts                             devserver.Hosts // answered beside loopback names (devserver.LoopbackOnly)
	Debug, DebugAddr, Dlv                  string          // DEBUG=<Function>: run it under Delve on DebugAddr
}

// Config is what the flags and PORT say, read once.
type Config struct {
	Flags
	Port     int
	Timeouts devserver.Timeouts // devserver.ToolTimeouts
}

// parse reads the shared flags, and those extra defines, from args, and
// PORT (port when unset) from the environment. target is the make target,
// named in errors.
func parse(args []string, lookupEnv func(string) (string, bool), stderr io.Writer, target string, port int, extra func(*flag.FlagSet)) (Config, error) {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := Config{Timeouts: devserver.ToolTimeouts()}
	cfg.Flags.define(fs)
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args[1:]); err != nil {
		return cfg, err
	}
	if cfg.Bootstraps == "" {
		return cfg, fmt.Errorf("-bootstraps is required (make %s builds them)", target)
	}
	var err error
	cfg.Port, err = devserver.Port(func(k string) string { v, _ := lookupEnv(k); return v }, port)
	return cfg, err
}

func (f *Flags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.Template, "template", "template.yaml", "the SAM template")
	fs.StringVar(&f.EnvFile, "env", "events/env.json", "environment per function, in SAM's --env-vars format")
	fs.StringVar(&f.Bootstraps, "bootstraps", "", "directory with <Function>/bootstrap for each function, built for this machine")
	fs.StringVar(&f.DataDir, "data", ".plantstore/dynalite", "where the local dynalite keeps its data")
	fs.BoolVar(&f.Watch, "watch", false, "rebuild and reload on every change of the source, template.yaml or the env file (WATCH=1)")
	fs.Var(&f.AllowHosts, "allow-host", "host `names` to answer beside localhost, *.localhost, 127.0.0.1 and [::1], comma-separated, repeatable (ALLOW_HOSTS=...); other Hosts and pages of other sites get 403")
	fs.StringVar(&f.Debug, "debug", "", "logical ID of a function to run under Delve (DEBUG=<Function>); its bootstrap must be a debug build")
	fs.StringVar(&f.DebugAddr, "debug-addr", "127.0.0.1:5858", "where Delve's headless server listens (DEBUG_PORT=...)")
	fs.StringVar(&f.Dlv, "dlv", ".bin/dlv", "Delve's dlv")
}

// DebugNote says how to attach, when a function runs under Delve.
func (f *Flags) DebugNote(w io.Writer) {
	if f.Debug != "" {
		fmt.Fprintf(w, "Debugging %s: Delve listens on %s when it first runs and holds its first invocation until a debugger continues it (dlv connect %s, or VS Code: docs/local.md); no timeout while debugging\n", f.Debug, f.DebugAddr, f.DebugAddr)
	}
}

// Config is the Config the flags describe.
func (f *Flags) Config(lookupEnv func(string) (string, bool), log io.Writer) localfn.Config {
	return localfn.Config{
		Template: f.Template, EnvFile: f.EnvFile, DataDir: f.DataDir, LookupEnv: lookupEnv, Log: log,
		Bootstrap: func(fn string) string { return filepath.Join(f.Bootstraps, fn, "bootstrap") },
		Debug:     f.Debug, DebugServer: lambdaemu.Debug{Dlv: f.Dlv, Addr: f.DebugAddr},
	}
}

// Root is the repository the template is in, where make builds.
func (f *Flags) Root() string { return filepath.Dir(f.Template) }
