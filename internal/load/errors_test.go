package load

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
)

func TestClassify(t *testing.T) {
	op := func(err error) error {
		return &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", err)}
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}, KindDNS},
		{op(syscall.ECONNREFUSED), KindRefused},
		{op(syscall.ECONNRESET), KindReset},
		{op(syscall.EPIPE), KindReset},
		{errTimeout, KindTimeout},
		{context.DeadlineExceeded, KindTimeout},
		{fmt.Errorf("x: %w", os.ErrDeadlineExceeded), KindTimeout},
		{io.ErrUnexpectedEOF, KindClosed},
		{io.EOF, KindClosed},
		{fmt.Errorf("%w: status line %q", errBadResponse, "x"), KindBadResponse},
		{errHeaderTooLarge, KindBadResponse},
		{tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}, KindTLS},
		{fmt.Errorf("something else"), KindOther},
	} {
		if got := Classify(tc.err); got != tc.want {
			t.Errorf("Classify(%v) = %s; want %s", tc.err, got, tc.want)
		}
	}
}
