// Package samtemplate reads template.yaml as SAM CLI reads it: the functions,
// their declared environments resolved by SAM CLI's rule (env.go), and the
// REST API's routes, authorizer, throttle and gateway responses (api.go).
// make invoke and make start-api run from what it reads, so that a change to
// the template changes what they do. Its tests hold template.yaml to the
// design (cfn-lint, the official SAM schema, the SAM translator's output,
// and the wiring).
package samtemplate

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Template is a parsed template: Doc holds it in CloudFormation's long form,
// plain maps and slices, with short tags such as !Ref and !GetAtt turned into
// {"Ref": ...} and {"Fn::GetAtt": [...]}.
type Template struct {
	Doc map[string]any
	// Dir is the template's folder, against which CodeUri and the other
	// paths of the template are read ("." for a template Parse read).
	Dir string
	// Overrides are parameter values that replace the defaults, as SAM
	// CLI's --parameter-overrides (ParseOverrides).
	Overrides map[string]string

	// order is the logical IDs of Resources as the document lists them
	// (ResourceOrder).
	order []string
}

// Load reads and parses the template at path.
func Load(path string) (*Template, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if t.Dir, err = filepath.Abs(filepath.Dir(path)); err != nil {
		return nil, err
	}
	return t, nil
}

// Parse parses a template's YAML.
func Parse(raw []byte) (*Template, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("empty template")
	}
	v, err := convert(doc.Content[0])
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the template is not a map")
	}
	if err := checkLogicalIDs(m); err != nil {
		return nil, err
	}
	return &Template{Doc: m, Dir: ".", order: keysInOrder(doc.Content[0], "Resources")}, nil
}

// keysInOrder lists the keys of the map under key in a YAML mapping, in
// the document's order.
func keysInOrder(n *yaml.Node, key string) []string {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != key {
			continue
		}
		v := n.Content[i+1]
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		var keys []string
		for j := 0; j+1 < len(v.Content); j += 2 {
			keys = append(keys, v.Content[j].Value)
		}
		return keys
	}
	return nil
}

// ResourceOrder lists the logical IDs of the resources in the template's
// own order, which SAM CLI's providers follow (they iterate the resources
// of the parsed template, a dict in document order): sorted for a Template
// Parse did not read.
func (t *Template) ResourceOrder() []string {
	res := t.Map("Resources")
	var ids []string
	for _, id := range t.order {
		if _, ok := res[id]; ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == len(res) {
		return ids
	}
	return slices.Sorted(maps.Keys(res))
}

// LogicalIDRule is CloudFormation's and SAM's rule for a logical ID ("The
// logical ID must be alphanumeric (A-Za-z0-9) and unique within the
// template", CloudFormation's template anatomy; the SAM translator's
// Resource._validate_logical_id: ^[A-Za-z0-9]+$, "Logical ids must be
// alphanumeric."). A template is a pull request's data: an ID is handed to
// make as a target name and joined into bootstrap paths, so one that breaks
// the rule is refused before anything runs.
const LogicalIDRule = `^[A-Za-z0-9]+$`

var logicalID = regexp.MustCompile(LogicalIDRule)

// IsLogicalID reports whether id follows LogicalIDRule: the only names the
// tools hand make (build-<ID>) or join into a path.
func IsLogicalID(id string) bool { return logicalID.MatchString(id) }

// checkLogicalIDs refuses the first ID of a section that breaks the rule,
// quoted so that no byte of it reaches a terminal raw.
func checkLogicalIDs(doc map[string]any) error {
	for _, section := range []string{"Parameters", "Mappings", "Conditions", "Resources", "Outputs"} {
		ids, _ := doc[section].(map[string]any)
		for _, id := range slices.Sorted(maps.Keys(ids)) {
			if !IsLogicalID(id) {
				return fmt.Errorf("%s: logical ID %q is not alphanumeric: SAM and CloudFormation allow only %s (\"Logical ids must be alphanumeric\")", section, id, LogicalIDRule)
			}
		}
	}
	return nil
}

func convert(n *yaml.Node) (any, error) {
	var v any
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i < len(n.Content); i += 2 {
			val, err := convert(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = val
		}
		v = m
	case yaml.SequenceNode:
		s := []any{}
		for _, c := range n.Content {
			val, err := convert(c)
			if err != nil {
				return nil, err
			}
			s = append(s, val)
		}
		v = s
	case yaml.ScalarNode:
		if isShortTag(n.Tag) {
			v = n.Value // !Ref Name, !Sub '...': the scalar is the argument
		} else if err := n.Decode(&v); err != nil {
			v = n.Value
		}
	case yaml.AliasNode:
		return convert(n.Alias)
	default:
		return nil, fmt.Errorf("line %d: unexpected YAML node", n.Line)
	}
	if isShortTag(n.Tag) {
		name := strings.TrimPrefix(n.Tag, "!")
		if name == "GetAtt" {
			if s, ok := v.(string); ok {
				obj, attr, _ := strings.Cut(s, ".")
				v = []any{obj, attr}
			}
		}
		if name != "Ref" && name != "Condition" {
			name = "Fn::" + name
		}
		v = map[string]any{name: v}
	}
	return v, nil
}

func isShortTag(tag string) bool { return strings.HasPrefix(tag, "!") && !strings.HasPrefix(tag, "!!") }

// Map walks the template to a map: Map("Resources", "PlantsApi", "Properties").
// A missing key or a value of another kind gives nil.
func (t *Template) Map(path ...string) map[string]any {
	m, _ := t.Get(path...).(map[string]any)
	return m
}

// Get walks the template to any value, nil where the path ends.
func (t *Template) Get(path ...string) any {
	var v any = t.Doc
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// RefTo is the name that a {"Ref": name} names, "" for any other value.
func RefTo(v any) string {
	m, _ := v.(map[string]any)
	s, _ := m["Ref"].(string)
	return s
}

// GetAttOf reads an {"Fn::GetAtt": [id, attribute]}, the form Parse gives
// !GetAtt id.attribute and the SAM translator writes; ok is false for any
// other value.
func GetAttOf(v any) (id, attr string, ok bool) {
	m, _ := v.(map[string]any)
	ga, _ := m["Fn::GetAtt"].([]any)
	if len(ga) != 2 {
		return "", "", false
	}
	id, _ = ga[0].(string)
	attr, _ = ga[1].(string)
	return id, attr, true
}

// ParameterDefault is the Default of a template parameter, as a string.
func (t *Template) ParameterDefault(name string) (string, bool) {
	p := t.Map("Parameters", name)
	if p == nil {
		return "", false
	}
	d, ok := p["Default"]
	if !ok {
		return "", false
	}
	return stringify(d), true
}

// Number resolves a template value that should be a number: a literal, or
// an intrinsic function (a !Ref to a parameter with a numeric default, in
// practice) resolved as sam local resolves it, with the parameters' defaults
// (Resolve, for SAM CLI's placeholder stack).
func (t *Template) Number(v any) (float64, error) {
	if m, ok := v.(map[string]any); ok {
		var err error
		if v, err = t.local().Value(m); err != nil {
			return 0, fmt.Errorf("%v is not a number or a parameter with a default: %w", m, err)
		}
	}
	switch n := v.(type) {
	case int:
		return float64(n), nil
	case float64:
		return n, nil
	case string:
		return strconv.ParseFloat(n, 64)
	}
	return 0, fmt.Errorf("%v is not a number", v)
}

// Resources lists the logical IDs of the resources of type typ, sorted.
func (t *Template) Resources(typ string) []string {
	var ids []string
	for id, r := range t.Map("Resources") {
		if m, ok := r.(map[string]any); ok && m["Type"] == typ {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// stringify turns a template or env-file value into the string a Lambda
// function sees, as SAM CLI does (_stringify_value in
// samcli/local/lambdafn/env_vars.py): maps and lists (unresolved intrinsics)
// and null become "", booleans "true"/"false", numbers their plain form.
func stringify(v any) string {
	switch x := v.(type) {
	case nil, map[string]any, []any:
		return ""
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	case json.Number:
		return x.String()
	case int:
		return strconv.Itoa(x)
	case float64:
		if x == float64(int64(x)) {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}
