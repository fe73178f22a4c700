package load

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// Error kinds, as counted in LoadResult.ErrorKinds.
const (
	KindRefused     = "refused"      // nothing listens at the address
	KindTimeout     = "timeout"      // no complete response within --timeout
	KindReset       = "reset"        // the peer reset the connection
	KindClosed      = "closed"       // the server closed the connection mid-response
	KindBadResponse = "bad-response" // not valid HTTP
	KindDNS         = "dns"          // the host name does not resolve
	KindTLS         = "tls"          // TLS handshake or certificate failure
	KindDropped     = "dropped"      // open model: waited longer than --timeout for a free slot
	KindStatus4xx   = "status-4xx"   // the server answered 4xx, not an expected status (--expect-status)
	KindStatus5xx   = "status-5xx"   // the server answered 5xx, not an expected status
	KindOther       = "other"
)

// Classify names the kind of a request error.
func Classify(err error) string {
	var dnsErr *net.DNSError
	var recErr tls.RecordHeaderError
	var certErr *tls.CertificateVerificationError
	var unkAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	switch {
	case errors.Is(err, errBadResponse):
		return KindBadResponse
	case errors.As(err, &dnsErr):
		return KindDNS
	case errors.Is(err, syscall.ECONNREFUSED):
		return KindRefused
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return KindTimeout
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED):
		return KindReset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return KindClosed
	case errors.As(err, &recErr), errors.As(err, &certErr), errors.As(err, &unkAuth), errors.As(err, &hostErr):
		return KindTLS
	}
	return KindOther
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
