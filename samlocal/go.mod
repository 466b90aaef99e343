// samlocal: SAM CLI's local commands (invoke, start-api, start-lambda,
// generate-event) for Go functions, without Docker, for any SAM project.
// Plant Store is its first user; it needs nothing of Plant Store, and
// installs with `go install github.com/plantstore/plantstore/samlocal/cmd/samlocal@<version>`.
module github.com/plantstore/plantstore/samlocal

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/MicahParks/keyfunc/v3 v3.9.0
	github.com/aws/aws-lambda-go v1.55.1
	github.com/aws/aws-sdk-go-v2 v1.47.7
	github.com/aws/aws-sdk-go-v2/credentials v1.20.15
	github.com/aws/aws-sdk-go-v2/service/dynamodb v1.68.0
	github.com/aws/aws-sdk-go-v2/service/dynamodbstreams v1.41.0
	github.com/awslabs/aws-lambda-go-api-proxy v0.16.2
	github.com/fsnotify/fsnotify v1.10.1
	github.com/golang-jwt/jwt/v5 v5.3.1
	golang.org/x/mod v0.29.0
	golang.org/x/time v0.15.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/MicahParks/jwkset v0.11.3 // indirect
	github.com/aws/aws-sdk-go-v2/internal/configsources v1.5.10 // indirect
	github.com/aws/aws-sdk-go-v2/internal/endpoints/v2 v2.8.10 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/accept-encoding v1.13.24 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/endpoint-discovery v1.13.3 // indirect
	github.com/aws/smithy-go v1.28.8 // indirect
	golang.org/x/sys v0.47.0 // indirect
)
