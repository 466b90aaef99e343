package samtemplate

import (
	"fmt"
	"regexp"
	"strings"
)

// The two forms of SAM CLI's --parameter-overrides
// (samcli/cli/types.py CfnParameterOverridesType): the CloudFormation CLI's
// ParameterKey=K,ParameterValue=V and the shorthand K=V, several separated
// by spaces. A key is letters, digits and quotes; a value is quoted with "
// or ', or runs to the next unescaped space. When a token holds the first
// form anywhere, only that form is read from it, as SAM CLI reads it.
const overrideValue = `("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|(?:\\.|[^ "\\])+)`

var (
	overrideLong  = regexp.MustCompile(`(?:^| )ParameterKey=([A-Za-z0-9"']+),ParameterValue=` + overrideValue)
	overrideShort = regexp.MustCompile(`(?:^| )([A-Za-z0-9"']+)=` + overrideValue)
)

// ParseOverrides reads --parameter-overrides values: each token is one or
// more overrides in either form.
func ParseOverrides(tokens []string) (map[string]string, error) {
	out := map[string]string{}
	for _, tok := range tokens {
		re := overrideShort
		if overrideLong.MatchString(tok) {
			re = overrideLong
		}
		matches := re.FindAllStringSubmatchIndex(tok, -1)
		covered := 0
		for _, m := range matches {
			covered += m[1] - m[0]
			out[unquote(tok[m[2]:m[3]])] = unquote(tok[m[4]:m[5]])
		}
		if len(matches) == 0 || strings.TrimSpace(tok) != "" && covered < len(strings.TrimSpace(tok)) {
			return nil, fmt.Errorf("%q is not a valid format. It must look something like 'ParameterKey=KeyPairName,ParameterValue=MyKey ParameterKey=InstanceType,ParameterValue=t1.micro' or 'KeyPairName=MyKey InstanceType=t1.micro'", tok)
		}
	}
	return out, nil
}

// unquote drops the quotes around s and its escapes of a space or a quote
// (_unquote_wrapped_quotes in samcli/cli/types.py).
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	return strings.NewReplacer(`\ `, " ", `\"`, `"`, `\'`, `'`).Replace(s)
}
