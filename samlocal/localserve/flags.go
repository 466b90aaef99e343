package localserve

import (
	"fmt"
	"io"

	"github.com/plantstore/plantstore/samlocal/devserver"
	"github.com/plantstore/plantstore/samlocal/lambdaemu"
	"github.com/plantstore/plantstore/samlocal/localfn"
)

// Config is what samlocal start-api and start-lambda are told, read once
// from their flags (samlocal's cli package).
type Config struct {
	Template  string            // the SAM template
	Overrides map[string]string // --parameter-overrides
	EnvFile   string            // --env-vars; "" for none
	DataDir   string            // where the local dynalite keeps its data
	Seed      string            // items for the local tables; "" for none
	BuildDir  string            // where the builds go
	SkipBuild bool              // run what BuildDir holds, unbuilt
	// Bootstrap, when set, names each function's executable in place of
	// the builds (tests hand prebuilt ones).
	Bootstrap func(function string) string

	Host       string
	Port       int
	Watch      bool
	AllowHosts devserver.Hosts // answered beside loopback names (devserver.LoopbackOnly)
	// Functions limits start-lambda to these logical IDs; none for all.
	Functions []string
	// Eager starts every function at start (--warm-containers EAGER); else
	// each starts on its first invocation and stays warm (LAZY).
	Eager bool

	Debug, DebugAddr, Dlv string // --debug-function: run it under Delve on DebugAddr
	Timeouts              devserver.Timeouts
}

// DebugNote says how to attach, when a function runs under Delve.
func (c *Config) DebugNote(w io.Writer) {
	if c.Debug != "" {
		fmt.Fprintf(w, "Debugging %s: Delve listens on %s when it first runs and holds its first invocation until a debugger continues it (dlv connect %s, or VS Code: docs/local.md); no timeout while debugging\n", c.Debug, c.DebugAddr, c.DebugAddr)
	}
}

// FnConfig is the localfn.Config the flags describe.
func (c *Config) FnConfig(lookupEnv func(string) (string, bool), log io.Writer) localfn.Config {
	return localfn.Config{
		Template: c.Template, Overrides: c.Overrides, EnvFile: c.EnvFile, DataDir: c.DataDir, Seed: c.Seed,
		BuildDir: c.BuildDir, Bootstrap: c.Bootstrap, LookupEnv: lookupEnv, Log: log,
		Debug: c.Debug, DebugServer: lambdaemu.Debug{Dlv: c.Dlv, Addr: c.DebugAddr},
	}
}
