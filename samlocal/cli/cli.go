// Package cli is the samlocal command: SAM CLI's local commands for the Go
// functions of any SAM template, without Docker. Each subcommand takes SAM
// CLI's own flags for what it serves (samcli/commands/local/*/cli.py and
// cli_common/options.py) and a few of its own, and reads functions, builds,
// APIs and tables from the template alone:
//
//	samlocal invoke [FUNCTION_LOGICAL_ID] [-e event.json] ...
//	samlocal start-api [-p 3000] ...
//	samlocal start-lambda [FUNCTION_LOGICAL_ID ...] [-p 3001] ...
//	samlocal generate-event <service> <event> [--tag value ...]
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/plantstore/plantstore/samlocal/devserver"
	"github.com/plantstore/plantstore/samlocal/localserve"
	"github.com/plantstore/plantstore/samlocal/proc"
	"github.com/plantstore/plantstore/samlocal/samconfig"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// Main runs samlocal on this process's arguments and environment until
// SIGINT, SIGTERM or SIGHUP (proc.Main).
func Main() {
	proc.Main("samlocal", func(ctx context.Context) error {
		return Run(ctx, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr)
	})
}

const usage = `samlocal: SAM CLI's local commands for Go functions, without Docker

  samlocal invoke [FUNCTION_LOGICAL_ID] [-e EVENT] [flags]
  samlocal start-api [flags]
  samlocal start-lambda [FUNCTION_LOGICAL_ID ...] [flags]
  samlocal generate-event SERVICE EVENT [--TAG VALUE ...]

Run it in the project's folder; "samlocal COMMAND -h" lists a command's flags.
`

// Run runs the subcommand args names.
func Run(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command")
	}
	switch args[0] {
	case "invoke":
		return invoke(ctx, args[1:], lookupEnv, stdout, stderr)
	case "start-api":
		return serve(ctx, startAPI, args[1:], lookupEnv, stdout, stderr)
	case "start-lambda":
		return serve(ctx, startLambda, args[1:], lookupEnv, stdout, stderr)
	case "generate-event":
		return generateEvent(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("no command %q", args[0])
}

// flags are the flags invoke, start-api and start-lambda share: SAM CLI's
// (invoke_common_options, service_common_options), then samlocal's own.
type flags struct {
	template, envVars, debugFunction, debuggerPath, warm, host string
	overrides                                                  multi
	debugPort, port                                            int
	dataDir, buildDir, seed                                    string
	configFile, configEnv                                      string
	skipBuild, watch, noEvent                                  bool
	allowHosts                                                 devserver.Hosts
}

// multi is a flag that may be given more than once.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, " ") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// define adds the shared flags to fs; server adds those of start-api and
// start-lambda, with port as --port's default.
func (f *flags) define(fs *flag.FlagSet, server bool, port int) {
	for _, name := range []string{"t", "template", "template-file"} {
		fs.StringVar(&f.template, name, "", "the SAM template (default: template.yaml, template.yml or template.json in this folder)")
	}
	for _, name := range []string{"n", "env-vars"} {
		fs.StringVar(&f.envVars, name, "", "a JSON file of environment values per function and under \"Parameters\", as SAM CLI's --env-vars")
	}
	fs.StringVar(&f.configFile, "config-file", "", "the configuration file (default: samconfig.toml, .yaml or .yml beside the template)")
	fs.StringVar(&f.configEnv, "config-env", samconfig.DefaultEnv, "the environment of the configuration file whose parameters are the flags' defaults")
	fs.Var(&f.overrides, "parameter-overrides", "template parameters: 'Key=Value Key2=Value2' or 'ParameterKey=Key,ParameterValue=Value' (repeatable)")
	for _, name := range []string{"d", "debug-port"} {
		fs.IntVar(&f.debugPort, name, 0, "run the function under Delve, its headless server on this port of 127.0.0.1")
	}
	fs.StringVar(&f.debuggerPath, "debugger-path", "", "the folder that holds dlv (default: dlv on PATH)")
	fs.StringVar(&f.dataDir, "data-dir", filepath.Join(".aws-sam", "samlocal", "dynamodb"), "where the local DynamoDB keeps the template's tables (samlocal's)")
	fs.StringVar(&f.buildDir, "build-dir", filepath.Join(".aws-sam", "samlocal", "build"), "where the functions are built for this machine (samlocal's)")
	fs.BoolVar(&f.skipBuild, "skip-build", false, "run the executables --build-dir holds, without building (samlocal's)")
	fs.StringVar(&f.seed, "seed", "", "items for the local tables, in batch-write-item's request-items JSON (samlocal's)")
	if !server {
		return
	}
	fs.StringVar(&f.host, "host", "127.0.0.1", "the address to listen on")
	for _, name := range []string{"p", "port"} {
		fs.IntVar(&f.port, name, port, "the port to listen on (0 picks a free one)")
	}
	fs.StringVar(&f.debugFunction, "debug-function", "", "the function that --debug-port debugs")
	fs.StringVar(&f.warm, "warm-containers", "LAZY", "EAGER starts every function at start; LAZY on its first invocation; either way it stays warm")
	fs.BoolVar(&f.watch, "watch", false, "rebuild and reload on every change of Go, the template or the env file (samlocal's)")
	fs.Var(&f.allowHosts, "allow-host", "host `names` to answer beside loopback ones, comma-separated, repeatable (samlocal's); other Hosts and other sites' pages get 403")
}

// parseArgs reads args: flags and positional arguments in any order, as SAM
// CLI's click reads them. --parameter-overrides takes the values after it
// up to the next flag, as SAM CLI's OptionNargs does.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	args = nargs(args)
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// parse reads args (parseArgs), then gives each flag the command line has
// not set the value of the configuration file's parameter of its name for
// command (invoke, start-api, start-lambda), as SAM CLI's click does with
// the file's values as its default_map (samcli/cli/cli_config_file.py
// configuration_callback): the file beside the template given with -t,
// else in the working folder (samcli/commands/_utils/options.py,
// get_or_default_template_file_name sets samconfig_dir). A parameter of
// the command's own table that no flag takes is one line on stderr.
func (f *flags) parse(fs *flag.FlagSet, command string, args []string, stderr io.Writer) ([]string, error) {
	positional, err := parseArgs(fs, args)
	if err != nil {
		return nil, err
	}
	dir := "."
	if f.template != "" {
		dir = filepath.Dir(f.template)
	}
	path, err := samconfig.Find(dir, f.configFile)
	if err != nil || path == "" {
		return positional, err
	}
	file, err := samconfig.Read(path)
	if err != nil {
		return nil, err
	}
	command = "local " + command
	params, own, err := file.Params(f.configEnv, command)
	if err != nil {
		return nil, err
	}
	where := fmt.Sprintf("%s [%s.%s.parameters]", path, f.configEnv, samconfig.Section(command))
	unknown, err := samconfig.Apply(fs, params, own)
	if err != nil {
		return nil, fmt.Errorf("%s %w", where, err)
	}
	for _, key := range unknown {
		fmt.Fprintf(stderr, "samlocal: %s %s: samlocal has no such flag; ignored\n", where, key)
	}
	return positional, nil
}

// nargs joins the values that follow --parameter-overrides into one.
func nargs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		out = append(out, args[i])
		if name := strings.TrimLeft(args[i], "-"); name == "parameter-overrides" && strings.HasPrefix(args[i], "-") {
			var vals []string
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				vals = append(vals, args[i])
			}
			out = append(out, strings.Join(vals, " "))
		}
	}
	return out
}

// findTemplate is the template SAM CLI's local commands find in the
// working folder when -t is not given (samcli/commands/_utils/options.py
// get_or_default_template_file_name): template.yaml, template.yml, then
// template.json. SAM CLI looks first at .aws-sam/build/template.yaml, the
// built template; samlocal builds from the source, so it reads the source.
func findTemplate(given string) (string, error) {
	if given != "" {
		return given, nil
	}
	for _, name := range []string{"template.yaml", "template.yml", "template.json"} {
		if _, err := os.Stat(name); err == nil {
			return name, nil
		}
	}
	return "", errors.New("no template.yaml, template.yml or template.json in this folder; name one with -t")
}

// config is the localserve.Config the flags describe.
func (f *flags) config() (localserve.Config, error) {
	tpl, err := findTemplate(f.template)
	if err != nil {
		return localserve.Config{}, err
	}
	overrides, err := samtemplate.ParseOverrides(f.overrides)
	if err != nil {
		return localserve.Config{}, err
	}
	cfg := localserve.Config{
		Template: tpl, Overrides: overrides, EnvFile: f.envVars,
		DataDir: f.dataDir, BuildDir: f.buildDir, SkipBuild: f.skipBuild, Seed: f.seed,
		Host: f.host, Port: f.port, Watch: f.watch, AllowHosts: f.allowHosts,
		Timeouts: devserver.ToolTimeouts(),
	}
	switch strings.ToUpper(f.warm) {
	case "EAGER":
		cfg.Eager = true
	case "LAZY", "":
	default:
		return cfg, fmt.Errorf("--warm-containers %q: want EAGER or LAZY", f.warm)
	}
	if f.debugPort != 0 {
		cfg.Debug = f.debugFunction
		cfg.DebugAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(f.debugPort))
		cfg.Dlv = "dlv"
		if f.debuggerPath != "" {
			cfg.Dlv = filepath.Join(f.debuggerPath, "dlv")
		}
	}
	return cfg, nil
}
