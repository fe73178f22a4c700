package load

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// h2client sends requests over HTTP/2 through net/http: h2 over TLS, or
// prior-knowledge h2c for plain http URLs. Each worker has its own transport
// so that -c means connections, as for HTTP/1.1.
type h2client struct {
	tr      *http.Transport
	client  *http.Client
	mu      sync.Mutex
	cancelF context.CancelFunc
	ports   *PortSet // Config.LocalPorts
}

func newH2Client(c *Config) *h2client {
	tr := &http.Transport{
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: c.Insecure},
		ForceAttemptHTTP2: true,
		DisableKeepAlives: c.DisableKeepAlive,
		Protocols:         new(http.Protocols),
	}
	tr.Protocols.SetHTTP2(true)
	tr.Protocols.SetUnencryptedHTTP2(true)
	return &h2client{tr: tr, ports: c.LocalPorts, client: &http.Client{Transport: tr, Timeout: c.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (h *h2client) close() { h.tr.CloseIdleConnections() }

func (h *h2client) cancel() {
	h.mu.Lock()
	if h.cancelF != nil {
		h.cancelF()
	}
	h.mu.Unlock()
}

func (h *h2client) do(p *prepared, o *outcome) {
	t := p.target
	ctx, cancel := context.WithCancel(context.Background())
	h.mu.Lock()
	h.cancelF = cancel
	h.mu.Unlock()
	defer cancel()
	var connStart time.Time
	trace := &httptrace.ClientTrace{
		ConnectStart:         func(string, string) { connStart = time.Now() },
		TLSHandshakeDone:     func(tls.ConnectionState, error) { o.connect = time.Since(connStart) },
		ConnectDone:          func(string, string, error) { o.connect = time.Since(connStart) },
		GotFirstResponseByte: func() { o.firstByte = time.Now() },
		GotConn:              func(info httptrace.GotConnInfo) { h.ports.addConn(info.Conn) },
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), t.Method, t.URL.String(), bytes.NewReader(t.Body))
	if err != nil {
		o.err = err
		return
	}
	req.Header = t.Header.Clone()
	if _, ok := req.Header["User-Agent"]; !ok {
		req.Header["User-Agent"] = []string{""} // empty: Go sends no default one
	}
	if host := t.Header.Get("Host"); host != "" {
		req.Host = host
	}
	o.start = time.Now()
	o.sent = o.start
	resp, err := h.client.Do(req)
	if err != nil {
		o.err, o.end = err, time.Now()
		return
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	o.end = time.Now()
	o.status, o.bodyBytes, o.err = resp.StatusCode, n, err
}
