// Command gate answers only the request it is told to take, for the tests
// of perflab's readiness probe: -method POST answers 405 (with Allow) to
// any other method and 400 to an empty body; -token T answers 401 to a
// request without "Authorization: Bearer T"; -status N answers N to every
// request. The request it takes gets "ok".
package main

import (
	"flag"
	"io"
	"net/http"
	"os"

	"perflab/testdata/services/svc"
)

func main() {
	var method, token *string
	var status *int
	os.Exit(svc.Run(svc.Service{Name: "gate",
		Flags: func(fs *flag.FlagSet) {
			method = fs.String("method", "", "answer 405 to any other `method`, and 400 to an empty body")
			token = fs.String("token", "", "answer 401 to a request without \"Authorization: Bearer `token`\"")
			status = fs.Int("status", 0, "answer this `status` to every request")
		},
		Handler: func(bool) (http.Handler, error) {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				switch {
				case *status != 0:
					w.WriteHeader(*status)
				case *method != "" && r.Method != *method:
					w.Header().Set("Allow", *method)
					w.WriteHeader(http.StatusMethodNotAllowed)
				case *method != "" && len(body) == 0:
					http.Error(w, "empty body", http.StatusBadRequest)
				case *token != "" && r.Header.Get("Authorization") != "Bearer "+*token:
					w.WriteHeader(http.StatusUnauthorized)
				default:
					w.Write([]byte("ok\n"))
				}
			}), nil
		}}, os.Args[1:], os.Stdout, os.Stderr))
}
