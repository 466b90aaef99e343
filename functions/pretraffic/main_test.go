package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
	"github.com/plantstore/plantstore/samlocal/proctest"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/golang-jwt/jwt/v5"

	"github.com/plantstore/plantstore/internal/dynamo"
	"github.com/plantstore/plantstore/internal/dynamotest"
	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/internal/lambdatest"
	"github.com/plantstore/plantstore/internal/plant"
	"github.com/plantstore/plantstore/internal/serverproc"
	"github.com/plantstore/plantstore/samlocal/dynamoemu"
	"github.com/plantstore/plantstore/samlocal/lambdaemu"
)

// dynamoemutest.Main stops the DynamoDB-compatible servers that tests started
// and every other child process.
func TestMain(m *testing.M) { dynamoemutest.Main(m, lambdatest.Cleanup) }

// codeDeploy records what the hook reports, as CodeDeploy's
// PutLifecycleEventHookExecutionStatus receives it (JSON 1.1 protocol).
type codeDeploy struct {
	*httptest.Server
	mu      sync.Mutex
	reports []report
}

type report struct {
	Target       string
	DeploymentID string `json:"deploymentId"`
	ExecutionID  string `json:"lifecycleEventHookExecutionId"`
	Status       string `json:"status"`
}

func newCodeDeploy(t *testing.T) *codeDeploy {
	c := &codeDeploy{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rep report
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &rep); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rep.Target = r.Header.Get("X-Amz-Target")
		c.mu.Lock()
		c.reports = append(c.reports, rep)
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		json.NewEncoder(w).Encode(map[string]string{"lifecycleEventHookExecutionId": rep.ExecutionID})
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *codeDeploy) all() []report {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]report(nil), c.reports...)
}

// userPool stands in for the stack's Cognito user pool: its API answers
// DescribeUserPoolClient (JSON 1.1, as the SDK calls it) with the app
// client's secret, and its token endpoint grants client credentials to that
// client with that secret and the scope plants/write. The access token has
// Cognito's shape (client_id and no aud, token_use access) and is signed
// with the fixtures' HS256 secret, so the test's authorizer accepts it: the
// app client's id is the authorizer's audience, as in the stack, where both
// are the UserPoolClient.
type userPool struct {
	api, token *httptest.Server
	clientID   string // the app client's id: the authorizer's audience
	secret     string // what DescribeUserPoolClient answers
	accepts    string // the secret the token endpoint accepts
	issued     atomic.Int32
}

const (
	testPoolID = "us-east-1_PreTraffic"
	testSecret = "app-client-secret-for-the-hook-tests" // #nosec G101 -- a test value, guards nothing
)

func newUserPool(t *testing.T) *userPool {
	p := &userPool{clientID: fixtures.Audience, secret: testSecret, accepts: testSecret}
	p.api = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ UserPoolId, ClientId string }
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		if r.Header.Get("X-Amz-Target") != "AWSCognitoIdentityProviderService.DescribeUserPoolClient" || json.Unmarshal(body, &in) != nil {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"__type":"InvalidParameterException","message":"not DescribeUserPoolClient"}`)
			return
		}
		if in.UserPoolId != testPoolID || in.ClientId != p.clientID {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"__type":"ResourceNotFoundException","message":"User pool client does not exist."}`)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"UserPoolClient": map[string]any{
			"UserPoolId": in.UserPoolId, "ClientId": in.ClientId, "ClientSecret": p.secret,
			"AllowedOAuthFlows": []string{"client_credentials"}, "AllowedOAuthScopes": []string{fixtures.Scope},
		}})
	}))
	t.Cleanup(p.api.Close)
	p.token = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		id, secret, ok := r.BasicAuth()
		if r.Method != http.MethodPost || r.URL.Path != "/oauth2/token" || !ok || id != p.clientID || secret != p.accepts {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"invalid_client"}`)
			return
		}
		// RFC 6749's grant: grant_type and scope in the form, the client's
		// id and secret in basic authentication alone, never in the form.
		if r.ParseForm() != nil || r.PostForm.Get("grant_type") != "client_credentials" || r.PostForm.Get("scope") != fixtures.Scope ||
			r.PostForm.Has("client_secret") || r.PostForm.Has("client_id") {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"invalid_request"}`)
			return
		}
		now := time.Now()
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
			"sub": id, "client_id": id, "token_use": "access", "scope": fixtures.Scope, "iss": fixtures.Issuer,
			"auth_time": now.Unix(), "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "jti": rand.Text(), "version": 2,
		}).SignedString([]byte(fixtures.Secret))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		p.issued.Add(1)
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "expires_in": 3600, "token_type": "Bearer"})
	}))
	t.Cleanup(p.token.Close)
	return p
}

// env is the hook's environment for this user pool, as template.yaml gives
// it with the Cognito issuer, and the SDK's endpoint variable for its API.
func (p *userPool) env() []string {
	return []string{
		"COGNITO_USER_POOL_ID=" + testPoolID, "COGNITO_CLIENT_ID=" + p.clientID,
		"COGNITO_TOKEN_ENDPOINT=" + p.token.URL + "/oauth2/token",
		"AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER=" + p.api.URL,
	}
}

// acceptingStore is a DynamoDB that answers every PutItem with success and
// keeps the items, for the releases whose store is not what is under test:
// createplant answers 200 whenever it reaches it.
type acceptingStore struct {
	*httptest.Server
	mu    sync.Mutex
	items []map[string]map[string]string
}

func newAcceptingStore(t *testing.T) *acceptingStore {
	s := &acceptingStore{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		var in struct{ Item map[string]map[string]string }
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("X-Amz-Target") != "DynamoDB_20120810.PutItem" || json.Unmarshal(body, &in) != nil {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"__type":"com.amazon.coral.validate#ValidationException","message":"only PutItem here"}`)
			return
		}
		s.mu.Lock()
		s.items = append(s.items, in.Item)
		s.mu.Unlock()
		io.WriteString(w, `{}`)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *acceptingStore) puts() []map[string]map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]map[string]string(nil), s.items...)
}

// startLambda is the Lambda Invoke API (lambdaemu.InvokeAPI, as make
// start-lambda serves it) before the real bootstraps of the two functions
// the hook proves, with the environments of events/env.json; createplant's
// is changed by createPlantEnv: its store is an accepting one unless
// createPlantEnv names another. That make start-lambda itself serves the
// hook is tools/cmd/startlambda's TestPreTrafficHookReportsLocally.
func startLambda(t *testing.T, createPlantEnv map[string]string, authorizerBin string) string {
	t.Helper()
	env := fixtures.Env()
	env["CreatePlantFunction"]["TABLE_NAME"] = fixtures.Table // the template's !Ref PlantsTable under samlocal
	if _, ok := createPlantEnv["AWS_ENDPOINT_URL_DYNAMODB"]; !ok {
		env["CreatePlantFunction"]["AWS_ENDPOINT_URL_DYNAMODB"] = newAcceptingStore(t).URL
	}
	maps.Copy(env["CreatePlantFunction"], createPlantEnv)
	session := []string{"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "HOME=" + t.TempDir()}
	spec := func(bin, function string, timeout time.Duration) lambdaemu.Spec {
		vars := slices.Clone(session)
		for k, v := range env[function] {
			vars = append(vars, k+"="+v)
		}
		return lambdaemu.Spec{Bootstrap: bin, Env: vars, Timeout: timeout}
	}
	var out proctest.Output
	functions := lambdaemu.NewFunctions(map[string]lambdaemu.Spec{
		"CreatePlantFunction": spec(lambdatest.Bootstrap(t, "CreatePlantFunction"), "CreatePlantFunction", 6*time.Second),
		"AuthorizerFunction":  spec(authorizerBin, "AuthorizerFunction", 5*time.Second),
	}, &out)
	t.Cleanup(functions.Close)
	srv := httptest.NewServer(lambdaemu.NewInvokeAPI(functions, []string{"CreatePlantFunction", "AuthorizerFunction"}, slog.New(slog.DiscardHandler)))
	t.Cleanup(srv.Close)
	return srv.URL
}

// storeOn is createplant's environment for table on srv: its endpoint and
// the credentials it answers.
func storeOn(srv *dynamoemu.Server, table string) map[string]string {
	return map[string]string{"TABLE_NAME": table, "AWS_ENDPOINT_URL_DYNAMODB": srv.URL,
		"AWS_ACCESS_KEY_ID": srv.Credentials.AccessKeyID, "AWS_SECRET_ACCESS_KEY": srv.Credentials.SecretAccessKey}
}

// run is one invocation of the hook: what it reported and logged.
type run struct {
	reports []report
	log     string
}

// runHook runs the real hook bootstrap once with a CodeDeploy event, with
// the authorizer's issuer, audience and scope (as template.yaml gives it)
// and stack, the variables of the stack's issuer (a userPool's env, or none
// for another issuer).
func runHook(t *testing.T, lambdaURL string, deploy *codeDeploy, timeout time.Duration, stack ...string) run {
	t.Helper()
	bin := lambdatest.Bootstrap(t, "PreTrafficFunction")
	env := append([]string{
		"CREATEPLANT_VERSION=CreatePlantFunction", "AUTHORIZER_VERSION=AuthorizerFunction", "METHOD_ARN=" + fixtures.LocalMethodARN,
		"AUTH_ISSUER=" + fixtures.Issuer, "AUTH_AUDIENCE=" + fixtures.Audience, "AUTH_REQUIRED_SCOPE=" + fixtures.Scope,
		"AWS_ENDPOINT_URL_LAMBDA=" + lambdaURL, "AWS_ENDPOINT_URL_CODEDEPLOY=" + deploy.URL,
		"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "HOME=" + t.TempDir(),
	}, stack...)
	fn := lambdatest.Launch(t, bin, env)
	// The hook answers within its own deadline, always: the invocation's
	// context ends there (a context, not a stopwatch).
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res, err := fn.Runtime.Invoke(ctx, []byte(`{"DeploymentId":"d-TEST12345","LifecycleEventHookExecutionId":"exec-abc"}`), timeout)
	if ctx.Err() != nil {
		t.Fatalf("the hook did not answer within its %v deadline\nits output:\n%s", timeout, fn.Output.String())
	}
	if err != nil || res.Error != nil {
		t.Fatalf("the hook: %v %s\nits output:\n%s", err, res.Error, fn.Output.String())
	}
	fn.Stop() // and so every line is written
	t.Logf("the hook's log:\n%s", fn.Output.String())
	return run{reports: deploy.all(), log: fn.Output.String()}
}

// want checks that the hook reported status once, and that its log names
// each of why (the checks that failed, for Failed).
func (r run) want(t *testing.T, status string, why ...string) {
	t.Helper()
	if len(r.reports) != 1 {
		t.Fatalf("the hook reported %d times (%+v), want once", len(r.reports), r.reports)
	}
	rep := r.reports[0]
	if rep.Target != "CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus" || rep.DeploymentID != "d-TEST12345" || rep.ExecutionID != "exec-abc" || rep.Status != status {
		t.Errorf("the hook reported %+v, want %s for d-TEST12345 / exec-abc", rep, status)
	}
	for _, w := range why {
		if !strings.Contains(r.log, w) {
			t.Errorf("the hook's log does not say %q", w)
		}
	}
}

// The reserved plant as createplant stores it.
var reservedItem = map[string]map[string]string{"id": {"N": "-9223372036854775808"}, "name": {"S": "pre-traffic check"}}

func TestGoodReleaseSucceeds(t *testing.T) {
	t.Parallel()
	t.Run("Cognito", func(t *testing.T) {
		t.Parallel()
		deploy, pool, store := newCodeDeploy(t), newUserPool(t), newAcceptingStore(t)
		url := startLambda(t, map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": store.URL}, lambdatest.Bootstrap(t, "AuthorizerFunction"))
		runHook(t, url, deploy, 30*time.Second, pool.env()...).want(t, "Succeeded")
		if n := pool.issued.Load(); n != 1 {
			t.Errorf("the token endpoint issued %d tokens, want 1 (one per run)", n)
		}
		puts := store.puts()
		if len(puts) != 1 {
			t.Fatalf("createplant wrote %d items, want the reserved plant once", len(puts))
		}
		for k, v := range reservedItem {
			if !maps.Equal(puts[0][k], v) {
				t.Errorf("the written item's %s = %v, want %v (the reserved plant)", k, puts[0][k], v)
			}
		}
	})
	// With another issuer the hook has no token of the stack: it says so and
	// proves the rest, a throwaway RS256 token included.
	t.Run("another issuer", func(t *testing.T) {
		t.Parallel()
		deploy := newCodeDeploy(t)
		url := startLambda(t, nil, lambdatest.Bootstrap(t, "AuthorizerFunction"))
		runHook(t, url, deploy, 30*time.Second).want(t, "Succeeded", "no Cognito user pool")
	})
}

// On a real DynamoDB-compatible server the first deployment stores the
// reserved plant and every later one replays it: 200 each time, one item.
// A different plant under the reserved id fails every deployment, saying
// why.
func TestReservedPlantOnARealStore(t *testing.T) {
	t.Parallel()
	for name, server := range map[string]func(testing.TB) *dynamoemu.Server{"dynalite": dynamoemutest.Dynalite, "moto": dynamoemutest.Moto} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := server(t)
			authorizer := lambdatest.Bootstrap(t, "AuthorizerFunction")

			t.Run("stored, then replayed", func(t *testing.T) {
				t.Parallel()
				table := dynamotest.NewTable(t, srv)
				url := startLambda(t, storeOn(srv, table), authorizer)
				pool := newUserPool(t)
				for i := range 2 {
					runHook(t, url, newCodeDeploy(t), 30*time.Second, pool.env()...).want(t, "Succeeded")
					out, err := srv.Client().GetItem(context.Background(), &dynamodb.GetItemInput{
						TableName: aws.String(table), ConsistentRead: aws.Bool(true),
						Key: map[string]ddbtypes.AttributeValue{"id": &ddbtypes.AttributeValueMemberN{Value: strconv.FormatInt(reservedID, 10)}},
					})
					if err != nil {
						t.Fatal(err)
					}
					if n, ok := out.Item["name"].(*ddbtypes.AttributeValueMemberS); !ok || n.Value != reservedName {
						t.Errorf("after deployment %d the table holds %v under the reserved id, want the reserved plant", i+1, out.Item)
					}
				}
			})

			t.Run("the reserved id held by another plant", func(t *testing.T) {
				t.Parallel()
				table := dynamotest.NewTable(t, srv)
				other := plant.NewPlant{ID: reservedID, Name: "Someone's fern"}
				if _, err := dynamo.New(srv.Client(), table, time.Now).Create(context.Background(), other); err != nil {
					t.Fatal(err)
				}
				url := startLambda(t, storeOn(srv, table), authorizer)
				runHook(t, url, newCodeDeploy(t), 30*time.Second, newUserPool(t).env()...).want(t, "Failed", "another plant holds the id -9223372036854775808")
			})
		})
	}
}

func TestCreatePlantThatFailsItsInitFails(t *testing.T) {
	t.Parallel()
	deploy := newCodeDeploy(t)
	url := startLambda(t, map[string]string{"TABLE_NAME": ""}, lambdatest.Bootstrap(t, "AuthorizerFunction"))
	runHook(t, url, deploy, 30*time.Second, newUserPool(t).env()...).want(t, "Failed", "createplant CreatePlantFunction")
}

// A createplant that cannot store (a table that does not exist, a store it
// cannot reach) answers the reserved plant 500 or 503, and fails.
func TestCreatePlantWithoutItsStoreFails(t *testing.T) {
	t.Parallel()
	t.Run("unreachable store", func(t *testing.T) {
		t.Parallel()
		url := startLambda(t, map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:9"}, lambdatest.Bootstrap(t, "AuthorizerFunction"))
		runHook(t, url, newCodeDeploy(t), 30*time.Second, newUserPool(t).env()...).want(t, "Failed", "the reserved plant", "got 503")
	})
	for name, server := range map[string]func(testing.TB) *dynamoemu.Server{"dynalite": dynamoemutest.Dynalite, "moto": dynamoemutest.Moto} {
		t.Run("missing table on "+name, func(t *testing.T) {
			t.Parallel()
			srv := server(t)
			url := startLambda(t, storeOn(srv, "no-such-table-"+rand.Text()), lambdatest.Bootstrap(t, "AuthorizerFunction"))
			runHook(t, url, newCodeDeploy(t), 30*time.Second, newUserPool(t).env()...).want(t, "Failed", "the reserved plant", "got 500")
		})
	}
}

// buildAuthorizer builds one of the broken authorizers in testdata, into
// the test's kept build folder (proctest.BuildDir).
func buildAuthorizer(t *testing.T, name string) string {
	t.Helper()
	bin, err := serverproc.Build(proctest.BuildDir(t), "./functions/pretraffic/testdata/"+name)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestAuthorizerThatAllowsAMalformedTokenFails(t *testing.T) {
	t.Parallel()
	url := startLambda(t, nil, buildAuthorizer(t, "allowall"))
	runHook(t, url, newCodeDeploy(t), 30*time.Second, newUserPool(t).env()...).want(t, "Failed", "a malformed token got a policy")
}

// An authorizer that allows any well-formed token without checking its
// signature (nor its issuer or expiry) is caught by the stack's own token
// re-signed with a throwaway key; with another issuer, by a throwaway RS256
// token with the claims the authorizer wants.
func TestAuthorizerThatSkipsTheSignatureFails(t *testing.T) {
	t.Parallel()
	unverified := buildAuthorizer(t, "unverified")
	t.Run("Cognito", func(t *testing.T) {
		t.Parallel()
		url := startLambda(t, nil, unverified)
		runHook(t, url, newCodeDeploy(t), 30*time.Second, newUserPool(t).env()...).want(t, "Failed", "a token signed with a throwaway key got a policy")
	})
	t.Run("another issuer", func(t *testing.T) {
		t.Parallel()
		url := startLambda(t, nil, unverified)
		runHook(t, url, newCodeDeploy(t), 30*time.Second).want(t, "Failed", "a token signed with a throwaway key got a policy")
	})
}

// An authorizer that refuses every token, a good one too, is caught by the
// token the hook obtains as a client does. With another issuer there is no
// such token: the hook cannot catch it, says so, and succeeds (the gap that
// docs/design.md states).
func TestAuthorizerThatRefusesEveryTokenFails(t *testing.T) {
	t.Parallel()
	refuseAll := buildAuthorizer(t, "refuseall")
	t.Run("Cognito", func(t *testing.T) {
		t.Parallel()
		url := startLambda(t, nil, refuseAll)
		runHook(t, url, newCodeDeploy(t), 30*time.Second, newUserPool(t).env()...).want(t, "Failed", "a token of the stack's app client got the error")
	})
	t.Run("another issuer: the gap", func(t *testing.T) {
		t.Parallel()
		url := startLambda(t, nil, refuseAll)
		runHook(t, url, newCodeDeploy(t), 30*time.Second).want(t, "Succeeded", "no Cognito user pool")
	})
}

// A hook that cannot obtain a good token of the stack cannot prove the
// authorizer: Failed, and the app client's secret is never in its log.
func TestNoGoodTokenOfTheStackFails(t *testing.T) {
	t.Parallel()
	url := startLambda(t, nil, lambdatest.Bootstrap(t, "AuthorizerFunction"))
	t.Run("the token endpoint refuses the secret", func(t *testing.T) {
		t.Parallel()
		pool := newUserPool(t)
		pool.accepts = "another-secret"
		r := runHook(t, url, newCodeDeploy(t), 30*time.Second, pool.env()...)
		r.want(t, "Failed", "the token endpoint answered 401")
		if strings.Contains(r.log, testSecret) {
			t.Error("the hook logged the app client's secret")
		}
	})
	// Why the hook asks UserPoolClient and no client of its own: Cognito's
	// access tokens carry client_id and no aud, and the authorizer's
	// audience is UserPoolClient's id, so it refuses every other client's
	// token (template.yaml; samtemplate: TestCognitoWhenNoIssuer holds it).
	t.Run("a token of another app client", func(t *testing.T) {
		t.Parallel()
		pool := newUserPool(t)
		pool.clientID = "pre-traffic-client"
		runHook(t, url, newCodeDeploy(t), 30*time.Second, pool.env()...).want(t, "Failed", "a token of the stack's app client got the error")
	})
	t.Run("the user pool has no such client", func(t *testing.T) {
		t.Parallel()
		env := newUserPool(t).env()
		env[0] = "COGNITO_USER_POOL_ID=us-east-1_Other"
		runHook(t, url, newCodeDeploy(t), 30*time.Second, env...).want(t, "Failed", "ResourceNotFoundException")
	})
}

// A hook that cannot reach Lambda, or whose Lambda never answers, reports
// Failed before its own deadline instead of leaving CodeDeploy waiting.
func TestUnreachableOrSilentLambdaFailsWithinTheTimeout(t *testing.T) {
	t.Parallel()
	t.Run("nothing listens", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := "http://" + ln.Addr().String()
		ln.Close()
		runHook(t, closed, newCodeDeploy(t), 20*time.Second).want(t, "Failed")
	})
	t.Run("never answers", func(t *testing.T) {
		t.Parallel()
		release := make(chan struct{})
		silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}))
		defer silent.Close()
		defer close(release) // before Close, which waits for the handlers
		// The invocation's deadline is the bound (runHook's context).
		runHook(t, silent.URL, newCodeDeploy(t), 8*time.Second, newUserPool(t).env()...).want(t, "Failed")
	})
}
