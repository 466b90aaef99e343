package trace

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Explorer is what the API explorer offers: the operations of the API's
// OpenAPI document, and the token it sends with them.
type Explorer struct {
	Operations []Operation
	Token      string // a token the authorizer accepts; "" when none is known
}

// Operation is one operation of the OpenAPI document.
type Operation struct {
	Method, Path, ID, Summary string
	Fields                    []Field // of the JSON request body
	Example                   string  // a body made of the fields' examples
}

// Field is a property of a request body's schema.
type Field struct {
	Name, Type, Description string
	Required                bool
}

// ParseOpenAPI reads the operations of an OpenAPI 3 document (YAML or
// JSON), with the JSON request body of each: its fields from the schema it
// names and an example made of their examples.
func ParseOpenAPI(doc []byte) ([]Operation, error) {
	type schema struct {
		Ref        string `yaml:"$ref"`
		Required   []string
		Properties yaml.Node
	}
	var api struct {
		Paths map[string]map[string]struct {
			OperationID string `yaml:"operationId"`
			Summary     string
			RequestBody struct {
				Content map[string]struct{ Schema schema }
			} `yaml:"requestBody"`
		}
		Components struct{ Schemas map[string]schema }
	}
	if err := yaml.Unmarshal(doc, &api); err != nil {
		return nil, fmt.Errorf("OpenAPI document: %w", err)
	}
	var ops []Operation
	for path, methods := range api.Paths {
		for method, op := range methods {
			o := Operation{Method: strings.ToUpper(method), Path: path, ID: op.OperationID, Summary: op.Summary}
			s := op.RequestBody.Content["application/json"].Schema
			if name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/"); ok {
				s = api.Components.Schemas[name]
			}
			example := map[string]any{}
			var order []string
			props := s.Properties.Content // key, value, key, value: the document's order
			for i := 0; i+1 < len(props); i += 2 {
				var p struct {
					Type, Description string
					Example           any
				}
				if err := props[i+1].Decode(&p); err != nil {
					return nil, err
				}
				name := props[i].Value
				o.Fields = append(o.Fields, Field{Name: name, Type: p.Type, Description: p.Description, Required: slices.Contains(s.Required, name)})
				if p.Example != nil {
					example[name] = p.Example
					order = append(order, name)
				}
			}
			if len(order) > 0 {
				o.Example = orderedJSON(example, order)
			}
			ops = append(ops, o)
		}
	}
	slices.SortFunc(ops, func(a, b Operation) int { return strings.Compare(a.Path+a.Method, b.Path+b.Method) })
	return ops, nil
}

// orderedJSON writes m as a JSON object with its keys in order.
func orderedJSON(m map[string]any, order []string) string {
	var b strings.Builder
	b.WriteString("{")
	for i, k := range order {
		if i > 0 {
			b.WriteString(", ")
		}
		key, _ := json.Marshal(k)
		v, _ := json.Marshal(m[k])
		fmt.Fprintf(&b, "%s: %s", key, v)
	}
	b.WriteString("}")
	return b.String()
}
