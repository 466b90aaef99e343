// Package lambdatest runs the functions' real bootstrap binaries as the
// Lambda service runs them, without Docker, for the tests and the local
// tools (make invoke, start-api, start-lambda, bench):
//
//   - Server, a Lambda Runtime API on loopback (runtimeapi.go), and Launch
//     and Invoke for one function in one test (process.go);
//   - Functions, named functions on demand, one execution environment
//     each, and InvokeAPI, the Lambda Invoke API in front of them, as
//     `sam local start-lambda` serves it;
//   - Bootstrap, the binaries built by the Makefile's SAM targets, the
//     events of events/, and InitFails.
//
// It is the product's test support, as net/http/httptest is net/http's: no
// function imports it, and nothing of it ships.
package lambdatest
