package main

// The client credentials grant, against token endpoints that answer well,
// wrongly and with what must never reach a log.

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cognitoidentityprovider"
	cogtypes "github.com/aws/aws-sdk-go-v2/service/cognitoidentityprovider/types"

	"github.com/plantstore/plantstore/internal/fixtures"
)

// leakedToken is what a token endpoint hands out, or echoes, in the tests:
// it must never be part of an error.
const leakedToken = "eyJhbGciOiJIUzI1NiJ9.the-token-that-must-not-leak.c2lnbmF0dXJl" // #nosec G101 -- a test value, guards nothing

// appClient answers DescribeUserPoolClient with the app client's secret.
type appClient struct{ secret string }

func (c appClient) DescribeUserPoolClient(_ context.Context, in *cognitoidentityprovider.DescribeUserPoolClientInput, _ ...func(*cognitoidentityprovider.Options)) (*cognitoidentityprovider.DescribeUserPoolClientOutput, error) {
	return &cognitoidentityprovider.DescribeUserPoolClientOutput{UserPoolClient: &cogtypes.UserPoolClientType{
		UserPoolId: in.UserPoolId, ClientId: in.ClientId, ClientSecret: aws.String(c.secret),
	}}, nil
}

// tokenHook is a hook whose only part is the grant at tokenEndpoint.
func tokenHook(tokenEndpoint string) *hook {
	return &hook{
		cfg:     config{userPoolID: testPoolID, clientID: fixtures.Audience, tokenEndpoint: tokenEndpoint, scope: fixtures.Scope},
		clients: appClient{secret: testSecret},
		http:    tokenClient(),
	}
}

// Whatever the token endpoint answers, the error names what went wrong in
// the hook's own words, never the secret or a token, even when the answer
// echoes them: oauth2's RetrieveError quotes the body, and net/http quotes a
// malformed answer's lines.
func TestStackTokenErrorsHoldNoSecretNorToken(t *testing.T) {
	t.Parallel()
	answer := func(status int, contentType, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			w.WriteHeader(status)
			io.WriteString(w, body)
		}
	}
	echo := "client_secret=" + testSecret + " access_token=" + leakedToken
	tests := []struct {
		name   string
		answer http.HandlerFunc
		want   string // in the error
	}{
		{"400 whose description echoes the secret and a token", answer(http.StatusBadRequest, "application/json",
			`{"error":"invalid_request","error_description":"`+echo+`","access_token":"`+leakedToken+`"}`), "the token endpoint answered 400 invalid_request"},
		{"400 whose error code is the secret", answer(http.StatusBadRequest, "application/json",
			`{"error":"`+testSecret+`","access_token":"`+leakedToken+`"}`), "the token endpoint answered 400"},
		{"400 in plain text", answer(http.StatusBadRequest, "text/plain", echo), "the token endpoint answered 400"},
		{"401 that is not JSON", answer(http.StatusUnauthorized, "application/json", echo), "the token endpoint answered 401"},
		{"200 with an error and a token", answer(http.StatusOK, "application/json",
			`{"error":"invalid_client","error_description":"`+echo+`","access_token":"`+leakedToken+`","token_type":"Bearer"}`), "the token endpoint answered 200 invalid_client"},
		{"200 with a token that is not a bearer token", answer(http.StatusOK, "application/json",
			`{"access_token":"`+leakedToken+`","token_type":"`+testSecret+`"}`), errNoBearerToken.Error()},
		{"200 that is not JSON", answer(http.StatusOK, "application/json", echo), errNoBearerToken.Error()},
		{"200 of a form that does not parse", answer(http.StatusOK, "application/x-www-form-urlencoded", "x=%zz"+echo), errNoBearerToken.Error()},
		{"200 over 64 KiB", answer(http.StatusOK, "application/json",
			`{"access_token":"`+leakedToken+`","token_type":"Bearer","padding":"`+strings.Repeat(testSecret, maxTokenAnswer/len(testSecret))+`"}`), errNoBearerToken.Error()},
		{"a redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.1:9/?"+echo, http.StatusFound)
		}, "the token endpoint answered 302"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tt.answer)
			t.Cleanup(srv.Close)
			tok, err := tokenHook(srv.URL + "/oauth2/token").stackToken(t.Context())
			if err == nil {
				t.Fatalf("stackToken() = %q, want an error", tok)
			}
			holdsNeither(t, err)
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to say %q", err, tt.want)
			}
		})
	}
	t.Run("a malformed answer", func(t *testing.T) {
		t.Parallel()
		url := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"+echo+"\r\n\r\n")
		_, err := tokenHook(url + "/oauth2/token").stackToken(t.Context())
		holdsNeither(t, err)
		if !errors.Is(err, errNoBearerToken) {
			t.Errorf("error %v, want %v", err, errNoBearerToken)
		}
	})
	t.Run("the deadline", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // and so the server sees the client go
			<-r.Context().Done()
		}))
		t.Cleanup(srv.Close)
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		_, err := tokenHook(srv.URL + "/oauth2/token").stackToken(ctx)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v, want the context's deadline", err)
		}
	})
	t.Run("nothing listens", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + ln.Addr().String()
		ln.Close()
		_, err = tokenHook(url + "/oauth2/token").stackToken(t.Context())
		if _, ok := errors.AsType[*net.OpError](err); !ok {
			t.Errorf("error %v, want the connection's", err)
		}
	})
}

func holdsNeither(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	for what, s := range map[string]string{"the secret": testSecret, "a token": leakedToken} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("the error holds %s: %v", what, err)
		}
	}
}

// rawServer answers one request with answer, byte for byte, and returns
// its URL.
func rawServer(t *testing.T, answer string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		if req, err := http.ReadRequest(bufio.NewReader(conn)); err == nil {
			io.Copy(io.Discard, req.Body)
		}
		io.WriteString(conn, answer)
	}()
	return "http://" + ln.Addr().String()
}
