package samconfig

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const project = `version = 0.1
[default.global.parameters]
stack_name = "app"
parameter_overrides = "Stage=global"
port = 1

[default.local_start_api.parameters]
port = 3005
warm_containers = "EAGER"
static_dir = "public"

[default.deploy.parameters]
capabilities = "CAPABILITY_IAM"

[dev.local_start_api.parameters]
parameter_overrides = ["Stage=dev", "Debug=true"]
`

// A command's parameters are the environment's global ones, each
// overridden by the command's own (samconfig.py get_all), and no other
// command's; another environment has only its own.
func TestParamsAsSAMCLIMergesThem(t *testing.T) {
	t.Parallel()
	f, err := Read(write(t, t.TempDir(), "samconfig.toml", project))
	if err != nil {
		t.Fatal(err)
	}
	params, own, err := f.Params(DefaultEnv, "local start-api")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"stack_name": "app", "parameter_overrides": "Stage=global", "port": int64(3005), "warm_containers": "EAGER", "static_dir": "public"}
	if !reflect.DeepEqual(params, want) || !slices.Equal(own, []string{"port", "static_dir", "warm_containers"}) {
		t.Errorf("default: %v (own %v), want %v", params, own, want)
	}
	params, own, err = f.Params("dev", "local start-api")
	if err != nil || len(params) != 1 || !slices.Equal(Values(params["parameter_overrides"]), []string{"Stage=dev", "Debug=true"}) || len(own) != 1 {
		t.Errorf("dev: %v (own %v), %v", params, own, err)
	}
	if params, _, err := f.Params("prod", "local invoke"); err != nil || len(params) != 0 || Values(params["event"]) != nil {
		t.Errorf("an environment the file lacks: %v, %v", params, err)
	}
}

// Without --config-file the file is the first of samconfig.toml, .yaml
// and .yml that exists; a named one must exist unless it is the default
// name (cli_config_file.py configuration_callback), and a relative name is
// the folder's.
func TestFind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if path, err := Find(dir, ""); path != "" || err != nil {
		t.Errorf("no file: %q, %v", path, err)
	}
	if path, err := Find(dir, "samconfig.toml"); path != "" || err != nil {
		t.Errorf("the default name, absent: %q, %v", path, err)
	}
	if _, err := Find(dir, "other.toml"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("another name, absent: %v", err)
	}
	yml := write(t, dir, "samconfig.yml", "version: 0.1\n")
	if path, _ := Find(dir, ""); path != yml {
		t.Errorf("only .yml: %q", path)
	}
	toml := write(t, dir, "samconfig.toml", "version = 0.1\n")
	write(t, dir, "samconfig.yaml", "version: 0.1\n")
	if path, _ := Find(dir, ""); path != toml {
		t.Errorf("all three: %q, want the .toml", path)
	}
	other := write(t, dir, "other.toml", "version = 0.1\n")
	if path, err := Find(dir, "other.toml"); path != other || err != nil {
		t.Errorf("a relative name: %q, %v", path, err)
	}
	if path, err := Find(t.TempDir(), other); path != other || err != nil {
		t.Errorf("an absolute name: %q, %v", path, err)
	}
}

// A file with content carries a float version (samconfig.py
// _version_sanity_check); YAML reads as TOML does; other extensions and
// tables of the wrong kind are errors, never silently nothing.
func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"noversion.toml":  "[default.local_invoke.parameters]\nevent = \"e.json\"\n",
		"intversion.toml": "version = 1\n",
		"broken.toml":     "version = 0.1\n[default\n",
		"samconfig.json":  `{"version": 0.1}`,
	} {
		if _, err := Read(write(t, dir, name, text)); err == nil {
			t.Errorf("%s was read", name)
		}
	}
	if f, err := Read(write(t, dir, "empty.toml", "")); err != nil || len(f.doc) != 0 {
		t.Errorf("an empty file: %v", err)
	}
	f, err := Read(write(t, dir, "samconfig.yaml", "version: 0.1\ndefault:\n  local_invoke:\n    parameters:\n      event: e.json\n      debug_port: 5858\n"))
	if err != nil {
		t.Fatal(err)
	}
	if params, _, err := f.Params(DefaultEnv, "local invoke"); err != nil || params["event"] != "e.json" || !slices.Equal(Values(params["debug_port"]), []string{"5858"}) {
		t.Errorf("yaml: %v, %v", params, err)
	}
	f, err = Read(write(t, dir, "odd.toml", "version = 0.1\n[default]\nlocal_invoke = \"x\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.Params(DefaultEnv, "local invoke"); err == nil {
		t.Error("a command that is no table was read")
	}
}

// Apply gives a flag the command line left alone its parameter; flags that
// share a value are one; a list is each of its values; a key of the
// command's own table that no flag takes is returned, a global one is not.
func TestApply(t *testing.T) {
	t.Parallel()
	fresh := func() (*flag.FlagSet, *string, *[]string, *int, *bool) {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		var tpl string
		for _, n := range []string{"t", "template", "template-file"} {
			fs.StringVar(&tpl, n, "", "")
		}
		var overrides []string
		fs.Func("parameter-overrides", "", func(v string) error { overrides = append(overrides, v); return nil })
		return fs, &tpl, &overrides, fs.Int("port", 3000, ""), fs.Bool("watch", false, "")
	}
	params := map[string]any{"template": "b.yaml", "template_file": "a.yaml", "parameter_overrides": []any{"A=1", "B=2"}, "port": int64(3005), "watch": true, "stack_name": "app", "static_dir": "public"}
	own := []string{"port", "static_dir"}

	fs, tpl, overrides, port, watch := fresh()
	unknown, err := Apply(fs, params, own)
	if err != nil || *tpl != "a.yaml" || !slices.Equal(*overrides, []string{"A=1", "B=2"}) || *port != 3005 || !*watch || !slices.Equal(unknown, []string{"static_dir"}) {
		t.Errorf("nothing on the command line: %q %v %d %v, unknown %v, %v", *tpl, *overrides, *port, *watch, unknown, err)
	}

	fs, tpl, overrides, port, _ = fresh()
	if err := fs.Parse([]string{"-t", "cli.yaml", "--parameter-overrides", "C=3", "-port", "0"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(fs, params, own); err != nil || *tpl != "cli.yaml" || !slices.Equal(*overrides, []string{"C=3"}) || *port != 0 {
		t.Errorf("the command line wins: %q %v %d, %v", *tpl, *overrides, *port, err)
	}

	fs, _, _, _, _ = fresh()
	if _, err := Apply(fs, map[string]any{"port": "many"}, nil); err == nil {
		t.Error("port = \"many\" was taken")
	}
}
