package ui

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// crumb is one step of the breadcrumbs at the top of every page: where the
// page sits (runs › name › run › view), each step a link back.
type crumb struct{ Label, Href string }

var crumbsTmpl = template.Must(template.New("crumbs").Parse(`<nav class="perflab-crumbs" aria-label="breadcrumbs" style="font:13px/1.4 system-ui,sans-serif;background:#111827;color:#e5e7eb;padding:7px 16px;margin:0">` +
	`{{range $i, $c := .}}{{if $i}}<span aria-hidden="true" style="color:#6b7280;margin:0 8px">›</span>{{end}}` +
	`{{if $c.Href}}<a href="{{$c.Href}}" style="color:#93c5fd">{{$c.Label}}</a>{{else}}<span aria-current="page">{{$c.Label}}</span>{{end}}{{end}}</nav>`))

// crumbsHTML renders breadcrumbs (styled inline, so they look the same on
// perflab's pages and on pprof's).
func crumbsHTML(cs []crumb) template.HTML {
	var b bytes.Buffer
	if err := crumbsTmpl.Execute(&b, cs); err != nil {
		return ""
	}
	return template.HTML(b.String())
}

// withCrumbs puts breadcrumbs at the top of an HTML page's body.
func withCrumbs(page []byte, cs []crumb) []byte {
	nav := []byte(crumbsHTML(cs))
	i := bytes.Index(page, []byte("<body"))
	if i < 0 {
		return append(nav, page...)
	}
	j := bytes.IndexByte(page[i:], '>')
	if j < 0 {
		return append(nav, page...)
	}
	at := i + j + 1
	out := make([]byte, 0, len(page)+len(nav))
	out = append(out, page[:at]...)
	out = append(out, nav...)
	return append(out, page[at:]...)
}

// rootOf is the relative path from the page of r back to the UI's root
// ("../../" from /runs/ID/), so links work wherever the UI is mounted.
func rootOf(r *http.Request) string {
	dir := r.URL.Path[:strings.LastIndex(r.URL.Path, "/")+1]
	return strings.Repeat("../", max(strings.Count(dir, "/")-1, 0))
}

// runCrumbs are the breadcrumbs of a run's pages: runs › name › run ›
// here..., links relative to root (see rootOf).
func runCrumbs(root, id, name string, here ...string) []crumb {
	if root == "" {
		root = "./"
	}
	cs := []crumb{{Label: "perflab runs", Href: root}}
	if name != "" {
		cs = append(cs, crumb{Label: name, Href: root + "?q=" + url.QueryEscape(name)})
	}
	if len(here) == 0 {
		return append(cs, crumb{Label: id})
	}
	cs = append(cs, crumb{Label: id, Href: root + "runs/" + url.PathEscape(id) + "/"})
	for _, h := range here {
		cs = append(cs, crumb{Label: h})
	}
	return cs
}

// crumbWriter buffers an HTML response to put breadcrumbs at its top;
// other responses pass through.
type crumbWriter struct {
	http.ResponseWriter
	crumbs []crumb
	buf    bytes.Buffer
	html   bool
	code   int
}

func (c *crumbWriter) WriteHeader(code int) {
	c.code = code
	c.html = strings.HasPrefix(c.Header().Get("Content-Type"), "text/html")
	if !c.html {
		c.ResponseWriter.WriteHeader(code)
	}
}

func (c *crumbWriter) Write(b []byte) (int, error) {
	if c.code == 0 {
		if c.Header().Get("Content-Type") == "" {
			c.Header().Set("Content-Type", http.DetectContentType(b))
		}
		c.WriteHeader(http.StatusOK)
	}
	if c.html {
		return c.buf.Write(b)
	}
	return c.ResponseWriter.Write(b)
}

// finish writes a buffered HTML response with its breadcrumbs.
func (c *crumbWriter) finish() {
	if !c.html {
		return
	}
	page := withCrumbs(c.buf.Bytes(), c.crumbs)
	c.Header().Set("Content-Length", strconv.Itoa(len(page)))
	c.ResponseWriter.WriteHeader(c.code)
	c.ResponseWriter.Write(page)
}
