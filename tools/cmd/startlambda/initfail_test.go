package startlambda

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awslambda "github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/plantstore/plantstore/internal/lambdatest"
)

// A function whose init fails (LOG_LEVEL=bogus: lambdainit posts the reason
// to /runtime/init/error) is answered as sam local start-lambda answers it:
// the Lambda Runtime Interface Emulator that SAM runs hands back the
// document the runtime posted to /runtime/init/error as the invocation's
// payload (aws-lambda-runtime-interface-emulator,
// internal/lambda/rapi/handler/initerror.go), and SAM's
// local_lambda_http_service.py answers a payload with errorMessage and
// errorType 200 with X-Amz-Function-Error: Unhandled
// (LambdaOutputParser.is_lambda_error_response, base_local_service.py).
// So at every invocation (each starts a new environment, which fails
// again), never a panic and an empty reply; the init error is printed.
func TestAFailedInitIsAFunctionError(t *testing.T) {
	t.Parallel()
	dir := filepath.Dir(filepath.Dir(lambdatest.Bootstrap(t, "CreatePlantFunction")))
	s := startServer(t, dir, map[string]map[string]string{"CreatePlantFunction": {"LOG_LEVEL": "bogus"}}, map[string]string{}, nil)
	client := awslambda.New(awslambda.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(s.url),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
	for _, when := range []string{"the first invocation", "the next"} {
		out, err := client.Invoke(context.Background(), &awslambda.InvokeInput{FunctionName: aws.String("CreatePlantFunction"), Payload: []byte(`{}`)})
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		var doc struct{ ErrorType, ErrorMessage string }
		if out.StatusCode != 200 || aws.ToString(out.FunctionError) != "Unhandled" || json.Unmarshal(out.Payload, &doc) != nil ||
			doc.ErrorType != "InitError" || !strings.Contains(doc.ErrorMessage, "bogus") {
			t.Errorf("%s: %d %q %s, want 200 Unhandled with the init error the function posted", when, out.StatusCode, aws.ToString(out.FunctionError), out.Payload)
		}
	}
	if logs := s.stderr.String(); strings.Count(logs, `"msg":"init failed"`) != 2 || !strings.Contains(logs, "bogus") {
		t.Errorf("the function's init error is not on the terminal, once per start:\n%s", logs)
	}
}
