module github.com/plantstore/plantstore

go 1.26.0

require (
	github.com/MicahParks/jwkset v0.11.3
	github.com/MicahParks/keyfunc/v3 v3.9.0
	github.com/aws/aws-lambda-go v1.55.1
	github.com/aws/aws-sdk-go-v2 v1.47.7
	github.com/aws/aws-sdk-go-v2/config v1.33.15
	github.com/aws/aws-sdk-go-v2/credentials v1.20.15
	github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue v1.21.4 // the newest that fits service/dynamodb v1.68.0
	// service/codedeploy and service/lambda: the PreTraffic hook's clients, at the newest releases that need no
	// newer core module than the functions use (aws-sdk-go-v2 v1.47.7).
	github.com/aws/aws-sdk-go-v2/service/codedeploy v1.35.9
	// service/cognitoidentityprovider: the hook reads its app client's secret (DescribeUserPoolClient).
	// v1.70.0 needs no newer core module either, and its serde is the generated one without a
	// schemas package, so it adds no schema variables to the hook's init.
	github.com/aws/aws-sdk-go-v2/service/cognitoidentityprovider v1.70.0
	// Pinned at v1.68.0, the last release before schema-based serde (v1.69.0),
	// whose generated schema variables initialise at process start and lengthen
	// createplant's cold start and package init (docs/performance.md, "The SDK
	// line", measured side by side). Lift the pin when upstream makes that init
	// lazy, or when a fix we need lands after v1.68.0; measure with
	// `go run ./tools/cmd/bench -only cold -compare label=<other bootstrap>`.
	github.com/aws/aws-sdk-go-v2/service/dynamodb v1.68.0
	github.com/aws/aws-sdk-go-v2/service/lambda v1.114.2
	github.com/aws/smithy-go v1.28.8
	github.com/awslabs/aws-lambda-go-api-proxy v0.16.2
	github.com/getkin/kin-openapi v0.152.0
	github.com/golang-jwt/jwt/v5 v5.3.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	go.etcd.io/bbolt v1.5.0
	golang.org/x/oauth2 v0.38.0 // the PreTraffic hook's client credentials grant (clientcredentials)
	golang.org/x/time v0.16.0 // at what tools/preflight's OPA needs (repocheck)
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream v1.7.26 // indirect
	github.com/aws/aws-sdk-go-v2/feature/ec2/imds v1.20.7 // indirect
	github.com/aws/aws-sdk-go-v2/internal/configsources v1.5.10 // indirect
	github.com/aws/aws-sdk-go-v2/internal/endpoints/v2 v2.8.10 // indirect
	github.com/aws/aws-sdk-go-v2/internal/v4a v1.5.10 // indirect
	github.com/aws/aws-sdk-go-v2/service/dynamodbstreams v1.41.0 // indirect; what attributevalue v1.21.4 asks for, and the last release before schema serde (v1.42.0), whose package init allocates more (make bench's package-init row; -compare the other build)
	github.com/aws/aws-sdk-go-v2/service/internal/accept-encoding v1.13.24 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/endpoint-discovery v1.13.10 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/presigned-url v1.14.10 // indirect
	github.com/aws/aws-sdk-go-v2/service/signin v1.12.3 // indirect
	github.com/aws/aws-sdk-go-v2/service/sso v1.39.3 // indirect
	github.com/aws/aws-sdk-go-v2/service/ssooidc v1.44.3 // indirect
	github.com/aws/aws-sdk-go-v2/service/sts v1.51.8 // indirect
	github.com/go-openapi/jsonpointer v1.0.1 // indirect
	github.com/oasdiff/yaml v0.1.1 // indirect
	github.com/oasdiff/yaml3 v0.0.14 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect; at what tools/preflight's OPA needs (repocheck), linked by no function
)

require github.com/plantstore/plantstore/samlocal v0.0.0-00010101000000-000000000000

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/kr/pretty v0.3.1 // indirect
	github.com/rogpeppe/go-internal v1.15.0 // indirect
)

// samlocal, the local tools, from this checkout: the product's tests run
// its Runtime API and emulators (internal/lambdatest, dynamoemutest), and
// cmd/localapi serves behind its loopback guard (devserver). No function
// imports it.
replace github.com/plantstore/plantstore/samlocal => ./samlocal
