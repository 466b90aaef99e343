package samtemplate

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Function is a Go function of the template, as samlocal builds and runs it.
type Function struct {
	ID   string // logical ID
	Type string // AWS::Serverless::Function or AWS::Lambda::Function

	Runtime string // go1.x, provided, provided.al2 or provided.al2023
	Handler string
	// BuildMethod is the workflow that builds it, as sam build picks one:
	// Metadata.BuildMethod first, then the runtime (aws-sam-cli,
	// samcli/lib/build/workflow_config.py get_workflow_config): "go1.x"
	// (the Go modules builder) for Runtime go1.x or BuildMethod go1.x,
	// "makefile" for BuildMethod makefile or a provided runtime without one.
	BuildMethod string
	// CodeDir is the folder of CodeUri (Code for AWS::Lambda::Function),
	// "." by default, made absolute against the template's folder
	// (samcli/lib/providers/sam_stack_provider.py normalize_resource_path).
	CodeDir string
	// MakefileDir is where a makefile build's Makefile is: Metadata.ContextPath,
	// else CodeDir (samcli/lib/build/app_builder.py _build_function).
	MakefileDir string
	// TrimGoPath is Metadata.BuildProperties.TrimGoPath: go build -trimpath.
	TrimGoPath bool
	// Executable is the file the build writes and Lambda runs: bootstrap
	// for a provided runtime, Handler for go1.x (aws-lambda-builders,
	// workflows/go_modules/workflow.py).
	Executable string
}

// goRuntimes are the runtimes samlocal runs natively: Go's own (go1.x,
// retired by Lambda but still built by sam build) and the OS-only runtimes
// Go functions use.
var goRuntimes = []string{"go1.x", "provided", "provided.al2", "provided.al2023"}

// functionTypes are the resource types SAM CLI takes for functions
// (samcli/lib/providers/sam_function_provider.py _extract_functions).
var functionTypes = []string{"AWS::Serverless::Function", "AWS::Lambda::Function"}

// Properties is a function's properties with the Globals merged in, as
// the SAM translator's GlobalsPlugin merges them for AWS::Serverless::*
// resources (samtranslator/plugins/globals/globals.py _do_merge): maps
// merge key by key, lists are the globals' then the function's, anything
// else (an intrinsic function included) is the function's own. An
// AWS::Lambda::Function gets no globals.
func (t *Template) Properties(id string) map[string]any {
	r := t.Map("Resources", id)
	props, _ := r["Properties"].(map[string]any)
	if r["Type"] != "AWS::Serverless::Function" {
		return props
	}
	merged, _ := mergeGlobals(t.Map("Globals", "Function"), props).(map[string]any)
	if merged == nil {
		merged = map[string]any{}
	}
	return merged
}

func mergeGlobals(global, local any) any {
	if local == nil {
		return global
	}
	if global == nil {
		return local
	}
	gm, gok := global.(map[string]any)
	lm, lok := local.(map[string]any)
	if gok && lok && !isIntrinsic(gm) && !isIntrinsic(lm) {
		out := map[string]any{}
		maps.Copy(out, gm)
		for k, v := range lm {
			out[k] = mergeGlobals(gm[k], v)
		}
		return out
	}
	gl, gok := global.([]any)
	ll, lok := local.([]any)
	if gok && lok {
		return append(slices.Clone(gl), ll...)
	}
	return local
}

func isIntrinsic(m map[string]any) bool {
	if len(m) != 1 {
		return false
	}
	for k := range m {
		return k == "Ref" || k == "Condition" || strings.HasPrefix(k, "Fn::")
	}
	return false
}

// Functions lists the logical IDs of every function of the template
// (AWS::Serverless::Function and AWS::Lambda::Function), Go or not, sorted.
func (t *Template) Functions() []string {
	var ids []string
	for _, typ := range functionTypes {
		ids = append(ids, t.Resources(typ)...)
	}
	slices.Sort(ids)
	return ids
}

// GoFunctions reads the functions samlocal runs, and says in one line
// each what it does not serve of the template's functions (notes): a
// function of another runtime, an image, inline or S3 code, layers.
func (t *Template) GoFunctions() (fns []Function, notes []string, err error) {
	// SAM CLI reads a nested stack from a local template
	// (samcli/lib/providers/sam_stack_provider.py); samlocal reads one.
	for _, typ := range []string{"AWS::Serverless::Application", "AWS::CloudFormation::Stack"} {
		for _, id := range t.Resources(typ) {
			notes = append(notes, fmt.Sprintf("%s: %s (a nested stack) is not served: its functions, APIs and tables are not read", id, typ))
		}
	}
	for _, id := range t.Functions() {
		r := t.Map("Resources", id)
		typ, _ := r["Type"].(string)
		props := t.Properties(id)
		meta, _ := r["Metadata"].(map[string]any)
		runtime, _ := t.local().stringValue(props["Runtime"])
		if props["PackageType"] == "Image" {
			notes = append(notes, fmt.Sprintf("%s: PackageType Image is not served (samlocal builds Go from source, without Docker); the function is left out", id))
			continue
		}
		if !slices.Contains(goRuntimes, runtime) {
			notes = append(notes, fmt.Sprintf("%s: Runtime %q is not served (samlocal runs Go on %s natively); the function is left out", id, runtime, strings.Join(goRuntimes, ", ")))
			continue
		}
		code := props["CodeUri"]
		if typ == "AWS::Lambda::Function" {
			code = props["Code"]
			if m, ok := code.(map[string]any); ok && m["ZipFile"] != nil {
				notes = append(notes, fmt.Sprintf("%s: Code.ZipFile (inline code) is not served; the function is left out", id))
				continue
			}
		}
		if props["InlineCode"] != nil {
			notes = append(notes, fmt.Sprintf("%s: InlineCode is not served; the function is left out", id))
			continue
		}
		codeURI := "."
		switch c := code.(type) {
		case string:
			if strings.HasPrefix(c, "s3://") {
				notes = append(notes, fmt.Sprintf("%s: code in S3 (%s) is not served, as under sam local; the function is left out", id, c))
				continue
			}
			codeURI = c
		case map[string]any:
			if c["S3Bucket"] != nil || c["Bucket"] != nil {
				notes = append(notes, fmt.Sprintf("%s: code in S3 is not served, as under sam local; the function is left out", id))
				continue
			}
		}
		f := Function{ID: id, Type: typ, Runtime: runtime, CodeDir: t.path(codeURI)}
		f.Handler, _ = t.local().stringValue(props["Handler"])
		method, _ := meta["BuildMethod"].(string)
		switch {
		case method == "go1.x" || method == "" && runtime == "go1.x":
			f.BuildMethod = "go1.x"
		case method == "makefile" || method == "" && strings.HasPrefix(runtime, "provided"):
			f.BuildMethod = "makefile"
		default:
			notes = append(notes, fmt.Sprintf("%s: Metadata.BuildMethod %q is not served (samlocal builds go1.x and makefile); the function is left out", id, method))
			continue
		}
		f.MakefileDir = f.CodeDir
		if cp, ok := meta["ContextPath"].(string); ok {
			f.MakefileDir = t.path(cp)
		}
		bp, _ := meta["BuildProperties"].(map[string]any)
		f.TrimGoPath, _ = bp["TrimGoPath"].(bool)
		f.Executable = "bootstrap"
		if runtime == "go1.x" {
			if f.Handler == "" || f.Handler != filepath.Base(f.Handler) {
				return nil, nil, fmt.Errorf("%s: Runtime go1.x needs Handler, the name of the executable (got %q)", id, f.Handler)
			}
			f.Executable = f.Handler
		}
		if layers, _ := props["Layers"].([]any); len(layers) > 0 {
			notes = append(notes, fmt.Sprintf("%s: Layers are not served (nothing of /opt is there locally); the function runs without them", id))
		}
		fns = append(fns, f)
	}
	return fns, notes, nil
}

// Function is the Go function id, or an error naming the functions there are.
func (t *Template) Function(id string) (Function, error) {
	fns, _, err := t.GoFunctions()
	if err != nil {
		return Function{}, err
	}
	for _, f := range fns {
		if f.ID == id {
			return f, nil
		}
	}
	return Function{}, fmt.Errorf("function %s not found in template; possible options: %v", id, FunctionIDs(fns))
}

// FunctionIDs lists the logical IDs of fns.
func FunctionIDs(fns []Function) []string {
	ids := make([]string, len(fns))
	for i, f := range fns {
		ids[i] = f.ID
	}
	return ids
}

// path is p, made absolute against the template's folder.
func (t *Template) path(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(t.Dir, filepath.FromSlash(p))
}

// timeout is the function's Timeout, 3 s by default (Lambda's).
func (t *Template) timeout(id string) time.Duration {
	n, err := t.Number(t.Properties(id)["Timeout"])
	if err != nil || n <= 0 {
		n = 3
	}
	return time.Duration(n * float64(time.Second))
}

// Table is a DynamoDB table of the template.
type Table struct {
	ID, Type string
	// Name is what the functions' environments call it locally: its
	// TableName, else its logical ID (what a !Ref to it gives under sam
	// local).
	Name  string
	Props map[string]any // resolved as under sam local
}

// tableTypes are the resource types of DynamoDB tables.
var tableTypes = []string{"AWS::DynamoDB::Table", "AWS::Serverless::SimpleTable"}

// Tables reads every table of the template, sorted by logical ID.
func (t *Template) Tables() ([]Table, error) {
	var ids []string
	for _, typ := range tableTypes {
		ids = append(ids, t.Resources(typ)...)
	}
	slices.Sort(ids)
	var tables []Table
	for _, id := range ids {
		r := t.Map("Resources", id)
		v, err := t.local().Value(r["Properties"])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		props, _ := v.(map[string]any)
		name, _ := props["TableName"].(string)
		if name == "" {
			name = id
		}
		tables = append(tables, Table{ID: id, Type: r["Type"].(string), Name: name, Props: props})
	}
	return tables, nil
}
