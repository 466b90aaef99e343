package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/golang-jwt/jwt/v5"

	"github.com/plantstore/plantstore/samlocal/childproc"
	"github.com/plantstore/plantstore/samlocal/proctest"
)

func TestMain(m *testing.M) {
	// The shop is its own module, outside the repository's go.work: its
	// builds run as in its own checkout, in every test of the package.
	os.Setenv("GOWORK", "off")
	code := m.Run()
	childproc.StopAll()
	os.Exit(code)
}

// shop is a Go SAM project nobody here wrote the tools for: its own module,
// BuildMethod go1.x functions and a makefile one, a table keyed by a
// string with a global secondary index that the functions' environment
// names by !Ref, the implicit REST API with a path parameter and a greedy
// route, an admin REST API behind a Go Lambda REQUEST authorizer, an HTTP
// API behind a JWT authorizer, and a Python function samlocal does not
// serve.
const shop = "../testdata/shop"

// The shop is served by samlocal invoke, start-lambda and start-api from
// its template alone: each function built as sam build builds it, the
// table made with its own key schema and index, seeded from the shop's
// seed file, and what is not served said at start.
func TestServesAProjectNobodyHereWrote(t *testing.T) {
	t.Parallel()
	// The shop's table has a stream, so samlocal serves it on moto.
	if _, err := exec.LookPath("moto_server"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	common := []string{"-t", filepath.Join(shop, "template.yaml"), "--seed", filepath.Join(shop, "seed.json"),
		"--data-dir", filepath.Join(t.TempDir(), "dynamodb"), "--build-dir", proctest.BuildDir(t)}
	ctx := context.Background()

	put := apiEvent(t, "POST", "/products", nil, `{"sku":"MON-1","name":"Monstera","category":"aroids"}`)
	var stdout, stderr bytes.Buffer
	if err := Run(ctx, append([]string{"invoke", "ProductsFunction", "-e", put, "--parameter-overrides", "Currency=USD"}, common...), noEnv, &stdout, &stderr); err != nil {
		t.Fatalf("invoke ProductsFunction: %v\n%s", err, stderr.String())
	}
	if got := proxyAnswer(t, stdout.Bytes()); got.StatusCode != 201 || !strings.Contains(got.Body, `"currency":"USD"`) {
		t.Errorf("invoke ProductsFunction: %+v, want 201 with the overridden currency", got)
	}
	for _, note := range []string{"CategoryFunction: Layers are not served", `ReportFunction: Runtime "python3.12" is not served`} {
		if !strings.Contains(stderr.String(), "samlocal: "+note) {
			t.Errorf("no line %q at start:\n%s", note, stderr.String())
		}
	}

	stdout.Reset()
	list := apiEvent(t, "GET", "/categories", map[string]string{"category": "ferns"}, "")
	if err := Run(ctx, append([]string{"invoke", "CategoryFunction", "-e", list}, common...), noEnv, &stdout, &stderr); err != nil {
		t.Fatalf("invoke CategoryFunction: %v\n%s", err, stderr.String())
	}
	if got := proxyAnswer(t, stdout.Bytes()); got.Body != `{"skus":["FERN-1"]}` {
		t.Errorf("the seeded fern by its category index: %+v", got)
	}

	t.Run("start-lambda", func(t *testing.T) {
		url := serveShop(t, append([]string{"start-lambda", "-p", "0"}, common...))
		payload, _ := os.ReadFile(list)
		resp, err := http.Post(url+"/2015-03-31/functions/CategoryFunction/invocations", "application/json", bytes.NewReader(payload))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if got := proxyAnswer(t, body); resp.StatusCode != 200 || got.Body != `{"skus":["FERN-1"]}` {
			t.Errorf("%d %s", resp.StatusCode, body)
		}
	})

	t.Run("start-api", func(t *testing.T) {
		issuer := newIssuer(t)
		// start-lambda built every function into the build folder: the
		// same executables serve here (--skip-build), and no build repeats.
		url := serveShop(t, append([]string{"start-api", "-p", "0", "--skip-build", "--parameter-overrides", "IssuerUrl=" + issuer.url}, common...))
		resp, err := http.Post(url+"/products", "application/json", strings.NewReader(`{"sku":"ASP-1","name":"Asparagus fern","category":"ferns"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 201 {
			t.Errorf("POST /products: %d", resp.StatusCode)
		}
		read := issuer.sign(t, map[string]any{"sub": "alice", "aud": "shop", "scope": "orders/read"})
		for _, tc := range []struct {
			path   string
			header map[string]string
			status int
			want   string
		}{
			{"/categories?category=ferns", nil, 200, `{"skus":["ASP-1","FERN-1"]}`},
			{"/products?sku=ASP-1", nil, 200, `{"sku":"ASP-1","name":"Asparagus fern","category":"ferns","currency":"EUR"}`},
			// A path parameter, and a greedy route.
			{"/products/FERN-1", nil, 200, `{"sku":"FERN-1","name":"Boston fern","category":"ferns","currency":"EUR"}`},
			{"/categories/ferns/all", nil, 200, `{"skus":["ASP-1","FERN-1"]}`},
			// The admin API's Go REQUEST authorizer: the key and the store
			// are its identity; the store reaches the function.
			{"/admin/products/FERN-1?store=main", map[string]string{"X-Shop-Key": "local-admin-key"}, 200,
				`{"product":{"sku":"FERN-1","name":"Boston fern","category":"ferns","currency":"EUR"},"store":"main"}`},
			{"/admin/products/FERN-1", map[string]string{"X-Shop-Key": "local-admin-key"}, 401, `{"message":"Unauthorized"}`},
			{"/admin/products/FERN-1?store=main", map[string]string{"X-Shop-Key": "wrong"}, 401, `{"message":"Unauthorized"}`},
			// The HTTP API's JWT authorizer, against the issuer's keys.
			{"/orders/7", map[string]string{"Authorization": "Bearer " + read}, 200, `{"customer":"alice","order":"7"}`},
			{"/orders/7", nil, 401, `{"message":"Unauthorized"}`},
			{"/orders/7", map[string]string{"Authorization": "Bearer " + issuer.sign(t, map[string]any{"sub": "bob", "aud": "shop", "scope": "orders/write"})}, 403, `{"message":"Forbidden"}`},
			{"/nothing", nil, 403, `{"message":"Missing Authentication Token"}`},
		} {
			req, _ := http.NewRequest("GET", url+tc.path, nil)
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || string(body) != tc.want {
				t.Errorf("GET %s %v: %d %s, want %d %s", tc.path, tc.header, resp.StatusCode, body, tc.status, tc.want)
			}
		}
	})
}

// issuer is an OpenID identity provider on a loopback port: its discovery
// document, its key set and the tokens it signs.
type issuer struct {
	url string
	key *rsa.PrivateKey
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	iss := &issuer{key: key}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	iss.url = srv.URL
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": iss.url, "jwks_uri": iss.url + "/keys"})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []any{map[string]string{
			"kty": "RSA", "kid": "shop-1", "use": "sig", "alg": "RS256",
			"n": base64.RawURLEncoding.EncodeToString(key.N.Bytes()),
			"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(key.E)).Bytes()),
		}}})
	})
	return iss
}

// sign signs claims, valid for an hour from now.
func (iss *issuer) sign(t *testing.T, claims map[string]any) string {
	t.Helper()
	c := jwt.MapClaims{"iss": iss.url, "iat": time.Now().Add(-time.Minute).Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	for k, v := range claims {
		c[k] = v
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
	tok.Header["kid"] = "shop-1"
	s, err := tok.SignedString(iss.key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func noEnv(string) (string, bool) { return "", false }

// apiEvent writes a REST API proxy event and returns its path.
func apiEvent(t *testing.T, method, path string, query map[string]string, body string) string {
	t.Helper()
	raw, _ := json.Marshal(events.APIGatewayProxyRequest{HTTPMethod: method, Path: path, Resource: path, QueryStringParameters: query, Body: body})
	file := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

func proxyAnswer(t *testing.T, raw []byte) events.APIGatewayProxyResponse {
	t.Helper()
	var r events.APIGatewayProxyResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return r
}

// serveShop runs a samlocal server until the test ends and returns its URL
// (startShop).
func serveShop(t *testing.T, args []string) string {
	t.Helper()
	url, _, _, _ := startShop(t, args...)
	return url
}
