//go:build servicedeps

package labtest

// The Go test services in testdata/services import these modules (grpcapi
// and grpccache). The go command skips testdata directories when it tidies
// go.mod, so this file, which no build includes, keeps them required.
import (
	_ "google.golang.org/grpc"
	_ "google.golang.org/protobuf/types/known/wrapperspb"
)
