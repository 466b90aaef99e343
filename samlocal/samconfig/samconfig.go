// Package samconfig reads a SAM project's configuration file (samconfig.toml,
// samconfig.yaml or samconfig.yml) as SAM CLI reads it for one command: the
// values of [<env>.global.parameters], each overridden by the same key of
// [<env>.<command>.parameters] (samcli/lib/config/samconfig.py, get_all;
// samcli/cli/cli_config_file.py, ConfigProvider). The command line overrides
// both, which is the caller's part (Apply).
package samconfig

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"
)

// Names are the file names SAM CLI looks for when --config-file is not
// given, first found first (samconfig.py get_default_file, in the order of
// file_manager.py's FILE_MANAGER_MAPPER).
var Names = []string{"samconfig.toml", "samconfig.yaml", "samconfig.yml"}

// DefaultEnv is the environment read when --config-env is not given.
const DefaultEnv = "default"

// File is a configuration file as read.
type File struct {
	Path string
	doc  map[string]any
}

// Find is the path of the configuration file SAM CLI reads from dir (the
// folder of the template given with -t, else the working folder:
// samcli/commands/_utils/options.py sets samconfig_dir from the template).
// name is --config-file, "" when not given: relative to dir unless
// absolute, and an error when it does not exist, unless it is the default
// name (cli_config_file.py configuration_callback). Without it, the first
// of Names that exists; "" when none does.
func Find(dir, name string) (string, error) {
	if name == "" {
		for _, n := range Names {
			if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
				return filepath.Join(dir, n), nil
			}
		}
		return "", nil
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, name)
	}
	if info, err := os.Stat(path); err != nil || info.IsDir() {
		if name == Names[0] {
			return "", nil
		}
		return "", fmt.Errorf("config file %s does not exist or could not be read", name)
	}
	return path, nil
}

// Read reads the file at path by its extension. A file with any content
// must carry a numeric version (samconfig.py _version_sanity_check: a
// float, as `version = 0.1`).
func Read(path string) (*File, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc := map[string]any{}
	switch filepath.Ext(path) {
	case ".toml":
		err = toml.Unmarshal(raw, &doc)
	case ".yaml", ".yml":
		err = yaml.Unmarshal(raw, &doc)
	default:
		return nil, fmt.Errorf("%s: a config file is .toml, .yaml or .yml", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, ok := doc["version"].(float64); len(doc) > 0 && !ok {
		return nil, fmt.Errorf("%s: 'version' key is not present or is in unrecognized format", path)
	}
	return &File{path, doc}, nil
}

// Section names a command's table: "local start-api" is local_start_api
// (samconfig.py to_key).
func Section(command string) string {
	return strings.NewReplacer("-", "_", " ", "_").Replace(command)
}

// Params are command's parameters under env: the global table's, each
// overridden by the command's own; and the keys that came from the
// command's own table.
func (f *File) Params(env, command string) (params map[string]any, own []string, err error) {
	params = map[string]any{}
	envTable, err := table(f.doc, env, f.Path)
	if err != nil {
		return nil, nil, err
	}
	for i, section := range []string{"global", Section(command)} {
		t, err := table(envTable, section, f.Path+" ["+env+"]")
		if err == nil {
			t, err = table(t, "parameters", f.Path+" ["+env+"."+section+"]")
		}
		if err != nil {
			return nil, nil, err
		}
		for k, v := range t {
			params[k] = v
			if i == 1 {
				own = append(own, k)
			}
		}
	}
	slices.Sort(own)
	return params, own, nil
}

// table is the table at key of t: empty when absent, an error when key
// holds something else.
func table(t map[string]any, key, where string) (map[string]any, error) {
	switch v := t[key].(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return v, nil
	}
	return nil, fmt.Errorf("%s: %s is not a table", where, key)
}

// Values are a parameter's values as a flag takes them: a list's each, a
// scalar's one, none of an absent one.
func Values(v any) []string {
	switch v := v.(type) {
	case nil:
		return nil
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, Values(e)...)
		}
		return out
	case string:
		return []string{v}
	case float64:
		return []string{strconv.FormatFloat(v, 'f', -1, 64)}
	}
	return []string{fmt.Sprint(v)}
}

// Apply sets each flag of fs that the command line has not set to its
// parameter, the key being the flag's name with _ for - (as click names an
// option's parameter). Flags that share a value (-t, --template and
// --template-file) are one: a parameter is theirs unless one of them is set.
// Keys go in reverse order, so that template_file, SAM CLI's name, comes
// before its alias template. It returns the keys of own (the command's own
// table) that no flag takes, for the caller to say so.
func Apply(fs *flag.FlagSet, params map[string]any, own []string) (unknown []string, err error) {
	set := map[any]bool{}
	fs.Visit(func(f *flag.Flag) { set[shared(f)] = true })
	for _, key := range slices.Backward(slices.Sorted(maps.Keys(params))) {
		f := fs.Lookup(strings.ReplaceAll(key, "_", "-"))
		switch {
		case f == nil && slices.Contains(own, key):
			unknown = append(unknown, key)
		case f == nil || set[shared(f)]:
		default:
			for _, v := range Values(params[key]) {
				if err := fs.Set(f.Name, v); err != nil {
					return nil, fmt.Errorf("%s = %v: %w", key, params[key], err)
				}
			}
			set[shared(f)] = true
		}
	}
	slices.Sort(unknown)
	return unknown, nil
}

// shared is what a flag shares with its aliases: the variable its value
// points at (StringVar's, IntVar's, Var's of a pointer), else its name.
func shared(f *flag.Flag) any {
	if v := reflect.ValueOf(f.Value); v.Kind() == reflect.Pointer {
		return struct {
			t reflect.Type
			p uintptr
		}{v.Type(), v.Pointer()}
	}
	return f.Name
}
