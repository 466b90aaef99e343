// Package lambdaemu runs the functions' real bootstrap binaries as the
// Lambda service runs them, without Docker. It is the engine of the local
// tools (make invoke, start-api, start-lambda, bench) and of the tests that
// run a bootstrap (through internal/lambdatest):
//
//   - Server, a Lambda Runtime API on loopback, with Run and RunDebug to
//     start a bootstrap, or Delve with it, against it (runtimeapi.go);
//   - Functions, named functions on demand, one execution environment
//     each (functions.go);
//   - InvokeAPI, the Lambda Invoke API in front of them, as `sam local
//     start-lambda` serves it (invokeapi.go).
//
// No function imports it, and nothing of it ships.
package lambdaemu
