package gateway

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// A function's answer read as SAM CLI reads it
// (samcli/local/apigw/local_apigw_service.py
// _parse_v1_payload_format_lambda_output, _parse_v2_payload_format_lambda_output,
// get_base_64_encoded, _should_base64_decode_body, _merge_response_headers),
// which follows API Gateway's documented rules and fills what they leave
// open from trials ("Output format of a Lambda function for proxy
// integration", "Lambda function response for format 2.0").

// reply is what the client gets.
type reply struct {
	status int
	header http.Header
	body   []byte
}

var errMalformed = errors.New("malformed Lambda proxy response")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, args...))
}

// readV1 reads a payload 1.0 answer. A REST API refuses keys outside the
// proxy response's and takes base64Encoded before isBase64Encoded; an HTTP
// API's 1.0 needs statusCode and ignores other keys. A missing or zero
// statusCode is 200 on a REST API; a string or a float is read as a number.
// A REST API decodes a base64 body only when the client's Accept admits
// the answer's Content-Type and that type is binary for the API; an HTTP
// API decodes it whenever isBase64Encoded says so. Headers are
// multiValueHeaders, then each of headers that is not among them. The
// Content-Type is application/json when the answer has none. cookies is
// read but not sent in 1.0, as under SAM CLI.
func readV1(raw []byte, httpAPI bool, binaryTypes []string, accept string) (reply, error) {
	obj, err := object(raw)
	if err != nil {
		return reply{}, err
	}
	if obj == nil {
		return reply{}, malformed("the answer is not a JSON object")
	}
	if httpAPI && isNull(obj["statusCode"]) {
		return reply{}, malformed("statusCode is missing")
	}
	if !httpAPI {
		for k := range obj {
			if !slices.Contains([]string{"statusCode", "body", "headers", "multiValueHeaders", "isBase64Encoded", "cookies", "base64Encoded"}, k) {
				return reply{}, malformed("Invalid API Gateway Response Keys: %s", k)
			}
		}
	}
	status, err := statusOf(obj["statusCode"])
	if err != nil {
		return reply{}, err
	}
	h, err := mergeHeaders(obj["headers"], obj["multiValueHeaders"])
	if err != nil {
		return reply{}, err
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json")
	}
	key := "isBase64Encoded"
	if _, ok := obj["base64Encoded"]; ok && !httpAPI && !isNull(obj["base64Encoded"]) {
		key = "base64Encoded"
	}
	b64, err := boolField(obj[key], key)
	if err != nil {
		return reply{}, err
	}
	body := bodyText(obj["body"])
	decode := b64
	if !httpAPI {
		best := acceptBest(accept, h.Values("Content-Type"))
		decode = b64 && best != "" && binaryAllowed(binaryTypes, best)
	}
	return reply{status: status, header: h, body: decodeBody(body, decode)}, nil
}

// readV2 reads a payload 2.0 answer: any JSON. An object with statusCode is
// a response; any other object is the body of a 200 application/json
// answer, as it came; any other value is a 200 whose body is the value as
// text. cookies become Set-Cookie headers; multiValueHeaders is not read;
// a truthy isBase64Encoded decodes the body.
func readV2(raw []byte) (reply, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return reply{}, malformed("the answer is not JSON")
	}
	obj, isObject := v.(map[string]any)
	h := http.Header{}
	var body string
	switch {
	case isObject && hasKey(obj, "statusCode"):
		body = bodyText(obj["body"])
	case isObject:
		body, obj = string(bytes.TrimSpace(raw)), nil
	default:
		body, obj = pyStr(v), nil
	}
	status, err := statusOf(obj["statusCode"])
	if err != nil {
		return reply{}, err
	}
	if hs, ok := obj["headers"].(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(hs)) {
			if list, ok := hs[k].([]any); ok {
				for _, e := range list {
					h.Add(k, pyStr(e))
				}
				continue
			}
			h.Add(k, pyStr(hs[k]))
		}
	}
	if cs, ok := obj["cookies"].([]any); ok {
		for _, c := range cs {
			h.Add("Set-Cookie", pyStr(c))
		}
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json")
	}
	return reply{status: status, header: h, body: decodeBody(body, truthy(obj["isBase64Encoded"]))}, nil
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// object decodes a JSON object, numbers kept as written; nil for valid JSON
// that is no object.
func object(raw []byte) (map[string]any, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, malformed("Lambda response must be valid json")
	}
	m, _ := v.(map[string]any)
	return m, nil
}

func isNull(v any) bool { return v == nil }

// statusOf reads statusCode as Python's int(statusCode or 200): a falsy
// value is 200, a number is truncated, a string must be an integer; the
// result must be positive (and, for net/http, a three-digit status).
func statusOf(v any) (int, error) {
	if !truthy(v) {
		return http.StatusOK, nil
	}
	var n int
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			n = int(i)
		} else if f, err := x.Float64(); err == nil && !math.IsInf(f, 0) {
			n = int(f)
		} else {
			return 0, malformed("statusCode must be a positive int")
		}
	case string:
		i, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			return 0, malformed("statusCode must be a positive int")
		}
		n = i
	default:
		return 0, malformed("statusCode must be a positive int")
	}
	if n < 100 || n > 999 {
		return 0, malformed("statusCode %d is no HTTP status", n)
	}
	return n, nil
}

// boolField reads isBase64Encoded or base64Encoded: a bool, or one of
// "true", "True", "false", "False"; absent is false.
func boolField(v any, name string) (bool, error) {
	switch x := v.(type) {
	case nil:
		return false, nil
	case bool:
		return x, nil
	case string:
		switch x {
		case "true", "True":
			return true, nil
		case "false", "False":
			return false, nil
		}
	}
	return false, malformed("Invalid API Gateway Response Key: %v is not a valid %s", v, name)
}

// mergeHeaders is _merge_response_headers: multiValueHeaders in order,
// then each of headers unless its key has that value among its
// multiValueHeaders.
func mergeHeaders(single, multi any) (http.Header, error) {
	h := http.Header{}
	mv, _ := multi.(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(mv)) {
		list, ok := mv[k].([]any)
		if !ok {
			return nil, malformed("multiValueHeaders %s is not a list", k)
		}
		for _, e := range list {
			h.Add(k, pyStr(e))
		}
	}
	sv, _ := single.(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(sv)) {
		v := pyStr(sv[k])
		if list, ok := mv[k].([]any); ok && slices.ContainsFunc(list, func(e any) bool { return pyStr(e) == v }) {
			continue
		}
		h.Add(k, v)
	}
	return h, nil
}

// bodyText is a body as Python's str(body) for a truthy body, "" for any
// other (null, "", 0, false).
func bodyText(v any) string {
	if !truthy(v) {
		return ""
	}
	return pyStr(v)
}

// decodeBody decodes a base64 body when told to; a body that is not
// base64 is sent as it is, as SAM CLI sends it (it builds the error and
// never raises it).
func decodeBody(body string, decode bool) []byte {
	if decode && body != "" {
		if b, err := base64.StdEncoding.DecodeString(body); err == nil {
			return b
		}
	}
	return []byte(body)
}

// truthy is Python's truth of a JSON value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// pyStr is Python's str() of a JSON value, as SAM CLI renders a body or a
// header that is not a string: 42 is "42", true "True", a list or an
// object Python's repr ("{'a': 1}").
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyRepr(v)
}

func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return "'" + strings.ReplaceAll(strings.ReplaceAll(x, `\`, `\\`), "'", `\'`) + "'"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return x.String()
		}
		f, _ := x.Float64()
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		parts := make([]string, 0, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			parts = append(parts, pyRepr(k)+": "+pyRepr(x[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}
