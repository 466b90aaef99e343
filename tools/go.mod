// The workshop: the local tools, the preflight, the benchmarks and their
// tests, apart from the product so that its dependencies never enter the
// product's go.mod (as gopls is to golang.org/x/tools). Modules the product
// also uses are at the product's versions: repocheck (make lint) fails when
// this module would raise one in the workspace.
module github.com/plantstore/plantstore/tools

go 1.26.0

require (
	github.com/MicahParks/jwkset v0.11.3 // indirect
	github.com/MicahParks/keyfunc/v3 v3.9.0 // indirect
	github.com/aws/aws-lambda-go v1.55.1
	github.com/aws/aws-sdk-go-v2 v1.47.7
	github.com/aws/aws-sdk-go-v2/credentials v1.20.15
	github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue v1.21.4 // indirect
	github.com/aws/aws-sdk-go-v2/service/codedeploy v1.35.9
	github.com/aws/aws-sdk-go-v2/service/dynamodb v1.68.0
	github.com/aws/aws-sdk-go-v2/service/lambda v1.114.2
	github.com/aws/smithy-go v1.28.8 // indirect
	github.com/dlclark/regexp2 v1.11.0
	github.com/fsnotify/fsnotify v1.10.1 // indirect; WATCH=1 of the local tools
	github.com/getkin/kin-openapi v0.152.0 // indirect
	github.com/golang-jwt/jwt/v5 v5.3.1 // indirect
	github.com/plantstore/plantstore v0.0.0-00010101000000-000000000000
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	go.etcd.io/bbolt v1.5.0 // indirect
	golang.org/x/time v0.16.0 // indirect
	gopkg.in/yaml.v3 v3.0.1
	mvdan.cc/sh/v3 v3.14.1 // the shell parser of tools/preflight's workflow rules
)

require (
	// The rule book's engine (tools/preflight: Rego evaluated in process, its
	// fixtures run by OPA's tester). v1.22.4 evaluates the book faster than
	// v1.20.2 did (the preflight's test binary side by side: the commit that
	// raised it has the figures). It needs golang.org/x/time v0.16.0, x/sys
	// v0.49.0 and x/text v0.43.0, which the product's go.mod raises too
	// (repocheck).
	github.com/open-policy-agent/opa v1.22.4
	github.com/plantstore/plantstore/samlocal v0.0.0-00010101000000-000000000000
)

require (
	github.com/BurntSushi/toml v1.6.0 // indirect
	github.com/agnivade/levenshtein v1.2.2 // indirect
	github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream v1.7.26 // indirect
	github.com/aws/aws-sdk-go-v2/internal/configsources v1.5.10 // indirect
	github.com/aws/aws-sdk-go-v2/internal/endpoints/v2 v2.8.10 // indirect
	github.com/aws/aws-sdk-go-v2/service/dynamodbstreams v1.41.0 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/accept-encoding v1.13.24 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/endpoint-discovery v1.13.10 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/decred/dcrd/dcrec/secp256k1/v4 v4.4.1 // indirect
	github.com/frankban/quicktest v1.14.6 // indirect
	github.com/go-openapi/jsonpointer v1.0.1 // indirect
	github.com/gobwas/glob v1.1.0 // indirect
	github.com/goccy/go-json v0.11.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/lestrrat-go/blackmagic v1.0.4 // indirect
	github.com/lestrrat-go/dsig v1.4.0 // indirect
	github.com/lestrrat-go/dsig-secp256k1 v1.0.0 // indirect
	github.com/lestrrat-go/httpcc v1.0.1 // indirect
	github.com/lestrrat-go/httprc/v3 v3.0.6 // indirect
	github.com/lestrrat-go/jwx/v3 v3.4.0 // indirect
	github.com/lestrrat-go/option/v2 v2.0.0 // indirect
	github.com/oasdiff/yaml v0.1.1 // indirect
	github.com/oasdiff/yaml3 v0.0.14 // indirect
	github.com/segmentio/asm v1.2.1 // indirect
	github.com/sirupsen/logrus v1.10.2 // indirect
	github.com/valyala/fastjson v1.6.10 // indirect
	github.com/vektah/gqlparser/v2 v2.5.64 // indirect
	github.com/xeipuuv/gojsonpointer v0.0.0-20190905194746-02993c407bfb // indirect
	github.com/xeipuuv/gojsonreference v0.0.0-20180127040603-bd5ef7bd5415 // indirect
	github.com/yashtewari/glob-intersection v0.2.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

require (
	github.com/chromedp/cdproto v0.0.0-20250724212937-08a3db8b4327
	github.com/chromedp/chromedp v0.14.2
	github.com/go-delve/delve v1.27.0 // tools/delve's client of the dlv at DLV_VERSION (API v2); v1.27.1 on needs golang.org/x/text v0.40.0, which the product now has (v0.41.0, for OPA): raise it with tools/delve's tests
)

require (
	github.com/chromedp/sysutil v1.1.0 // indirect
	github.com/cilium/ebpf v0.11.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20250725192818-e39067aee2d2 // indirect
	github.com/gobwas/httphead v0.1.0 // indirect
	github.com/gobwas/pool v0.2.1 // indirect
	github.com/gobwas/ws v1.4.0 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/arch v0.11.0 // indirect
	golang.org/x/exp v0.0.0-20240112132812-db7319d0e0e3 // indirect; the version the product's graph selects: a lower one makes the workspace load x/tools' requirements, which raise golang.org/x/text
	golang.org/x/telemetry v0.0.0-20241106142447-58a1122356f5 // indirect
)

// The product, from this checkout: the tools run its real packages.
replace github.com/plantstore/plantstore => ../

// samlocal, from this checkout.
replace github.com/plantstore/plantstore/samlocal => ../samlocal
