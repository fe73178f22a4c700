// Command protosvc is a test service whose handler spends most of its CPU
// in a third-party module: for every request it logs the response, a
// protobuf message, with fmt.Fprintln, which formats it as text through
// google.golang.org/protobuf's prototext.
//
//	protosvc -addr 127.0.0.1:8080   # serve GET /
//	protosvc -n 1000                # format n responses and exit
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"

	"google.golang.org/protobuf/types/known/structpb"
)

func main() {
	addr := flag.String("addr", "", "serve on `address`")
	n := flag.Int("n", 0, "format `n` responses and exit")
	flag.Parse()
	if *addr == "" {
		total := 0
		for i := 0; i < *n; i++ {
			total += logResponse(io.Discard, response(i))
		}
		fmt.Println(total)
		return
	}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		msg := response(len(r.URL.Path))
		logResponse(io.Discard, msg)
		fmt.Fprintf(w, "ok %d\n", len(msg.Fields))
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}

// response builds the message a request answers with.
func response(i int) *structpb.Struct {
	items := make([]any, 20)
	for k := range items {
		items[k] = map[string]any{"id": float64(i*100 + k), "name": fmt.Sprintf("item \"%d\"\n", k), "tags": []any{"a", "b\tc"}}
	}
	s, err := structpb.NewStruct(map[string]any{"items": items, "request": float64(i)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return s
}

// logResponse logs msg as text: the costly line.
func logResponse(w io.Writer, msg *structpb.Struct) int {
	n, _ := fmt.Fprintln(w, msg)
	return n
}
