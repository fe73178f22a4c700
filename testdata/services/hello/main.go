// Command hello is a minimal net/http hello world for load-generator
// benchmarks: GET / answers "hello, world".
package main

import (
	"net/http"
	"os"

	"perflab/testdata/services/svc"
)

func main() {
	os.Exit(svc.Run(svc.Service{Name: "hello", Handler: func(bool) (http.Handler, error) {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Write([]byte("hello, world\n"))
		}), nil
	}}, os.Args[1:], os.Stdout, os.Stderr))
}
