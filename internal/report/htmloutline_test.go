package report

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlOutline is what a reader of an HTML page gets from it without its
// styles: the text, one block a line, in document order. The HTML goldens
// hold this outline, not the page, so that a change to the CSS, to class
// names or to inline styles leaves them alone, and a change to what the
// page says, to its sections or to its table rows shows as a diff.
//
// The page is parsed with golang.org/x/net/html, as a browser parses it.
// Then:
//   - style, script, head (but its title) and inline SVG charts are left
//     out: a chart is drawn from the data the tables and text show, and its
//     ticks and sizes are layout; it stands as "[svg]";
//   - a section or figure with an id gives a line "#id": the page's anchors;
//   - a heading is "#"s and its text, as in markdown; a list item starts
//     with "- ", the lines within it indented under it;
//   - a table row is "| cell | cell |", each cell's text on one line;
//   - pre keeps its lines;
//   - a link is [text](href); an iframe is [iframe title: the title of
//     the page in its srcdoc]; attributes are otherwise dropped.
//
// Every other element is a block or inline one as in HTML's default
// rendering; a run of spaces, tabs and newlines is one space.
func htmlOutline(t *testing.T, page []byte) []byte {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatalf("parsing the page: %v", err)
	}
	o := &outliner{}
	o.block(doc)
	o.flush()
	return []byte(strings.Join(o.lines, "\n") + "\n")
}

// outliner collects the lines of a page: the open line's text, and the
// indent and bullet of the list items around it.
type outliner struct {
	lines  []string
	line   spacedText
	indent string
	// bullet is the prefix of the next line, "- " when a list item has
	// written no line yet.
	bullet string
}

// spacedText is text written element by element. Two elements side by
// side with no text between them (two spans whose spacing a style gives)
// are separated by a space, and so is a block element within a line (a div
// in a table cell) from the text around it; other inline elements run on
// with the text beside them, as in "<b>2</b>ms".
type spacedText struct {
	b strings.Builder
	// space asks for a space before the next text; afterElem says an
	// element ended and no text followed yet.
	space, afterElem bool
}

func (s *spacedText) text(t string) {
	if t == "" {
		return
	}
	if s.space && s.b.Len() > 0 && !isSpace(t[0]) && !isSpace(s.b.String()[s.b.Len()-1]) {
		s.b.WriteByte(' ')
	}
	s.space, s.afterElem = false, false
	s.b.WriteString(t)
}

// start and end mark the start and the end of element n.
func (s *spacedText) start(n *html.Node) {
	if blockAtoms[n.DataAtom] || s.afterElem {
		s.space = true
	}
}

func (s *spacedText) end(n *html.Node) {
	if blockAtoms[n.DataAtom] {
		s.space = true
	}
	s.afterElem = true
}

func (s *spacedText) take() string {
	t := s.b.String()
	s.b.Reset()
	s.space, s.afterElem = false, false
	return t
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// blockAtoms are the elements that begin and end a line.
var blockAtoms = map[atom.Atom]bool{
	atom.Html: true, atom.Body: true, atom.Header: true, atom.Footer: true, atom.Main: true, atom.Nav: true,
	atom.Section: true, atom.Article: true, atom.Aside: true, atom.Div: true, atom.P: true, atom.Ul: true,
	atom.Ol: true, atom.Li: true, atom.Table: true, atom.Thead: true, atom.Tbody: true, atom.Tfoot: true,
	atom.Tr: true, atom.Figure: true, atom.Figcaption: true, atom.Details: true, atom.Summary: true,
	atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Blockquote: true, atom.Form: true, atom.Caption: true,
	atom.Fieldset: true, atom.Legend: true, atom.Hr: true,
}

// skipped are the elements whose content is not the page's text.
var skipped = map[atom.Atom]bool{atom.Style: true, atom.Script: true, atom.Template: true, atom.Noscript: true}

// flush ends the open line (nothing when it is empty).
func (o *outliner) flush() {
	s := strings.Join(strings.Fields(o.line.take()), " ")
	if s == "" {
		return
	}
	o.emit(s)
}

// emit adds a line under the current list items.
func (o *outliner) emit(s string) {
	if o.bullet != "" {
		o.lines = append(o.lines, o.indent[:len(o.indent)-len(o.bullet)]+o.bullet+s)
		o.bullet = ""
		return
	}
	o.lines = append(o.lines, o.indent+s)
}

// block walks n's children as the content of a block.
func (o *outliner) block(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		o.node(c)
	}
}

func (o *outliner) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		o.line.text(n.Data)
		return
	case html.DocumentNode:
		o.block(n)
		return
	case html.ElementNode:
	default:
		return
	}
	switch {
	case skipped[n.DataAtom]:
	case n.DataAtom == atom.Head:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom == atom.Title {
				o.emit("title: " + inlineText(c))
			}
		}
	case n.DataAtom == atom.Br:
		o.flush()
	case n.DataAtom == atom.Svg || n.DataAtom == atom.A || n.DataAtom == atom.Iframe && !blockAtoms[n.Parent.DataAtom]:
		var s spacedText
		writeInline(&s, n)
		o.line.start(n)
		o.line.text(s.take())
		o.line.end(n)
	case n.DataAtom == atom.Iframe:
		o.flush()
		o.emit(iframeText(n))
	case headingLevel(n) > 0:
		o.flush()
		o.emit(strings.Repeat("#", headingLevel(n)) + " " + inlineText(n))
	case n.DataAtom == atom.Tr:
		o.flush()
		var cells []string
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom == atom.Td || c.DataAtom == atom.Th {
				cells = append(cells, inlineText(c))
			}
		}
		o.emit("| " + strings.Join(cells, " | ") + " |")
	case n.DataAtom == atom.Pre:
		o.flush()
		text := strings.TrimSuffix(inlineRaw(n), "\n")
		for _, l := range strings.Split(text, "\n") {
			o.emit("    " + strings.TrimRight(l, " \t"))
		}
	case n.DataAtom == atom.Li:
		o.flush()
		indent, bullet := o.indent, o.bullet
		o.indent += "  "
		o.bullet = "- "
		o.block(n)
		o.flush()
		if o.bullet != "" { // an empty item
			o.emit("")
		}
		o.indent, o.bullet = indent, bullet
	case blockAtoms[n.DataAtom]:
		o.flush()
		if id := attr(n, "id"); id != "" && (n.DataAtom == atom.Section || n.DataAtom == atom.Figure) {
			o.emit("#" + id)
		}
		o.block(n)
		o.flush()
	default:
		o.line.start(n)
		o.block(n)
		o.line.end(n)
	}
}

// headingLevel is n's level when it is h1 to h6, else 0.
func headingLevel(n *html.Node) int {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return int(n.Data[1] - '0')
	}
	return 0
}

// inlineText is the text of n's children on one line: links as
// [text](href), charts as [svg], iframes as iframeText.
func inlineText(n *html.Node) string {
	return strings.Join(strings.Fields(inlineRaw(n)), " ")
}

// inlineRaw is the text of n's children with their whitespace as it is.
func inlineRaw(n *html.Node) string {
	var s spacedText
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		writeInline(&s, c)
	}
	return s.take()
}

// writeInline writes the text of n to s.
func writeInline(s *spacedText, n *html.Node) {
	switch {
	case n.Type == html.TextNode:
		s.text(n.Data)
		return
	case n.Type != html.ElementNode || skipped[n.DataAtom]:
		return
	case n.DataAtom == atom.Br:
		s.text("\n")
		return
	}
	s.start(n)
	switch {
	case n.DataAtom == atom.Svg:
		s.text("[svg]")
	case n.DataAtom == atom.Iframe:
		s.text(iframeText(n))
	case n.DataAtom == atom.A && attr(n, "href") != "":
		s.text("[" + inlineText(n) + "](" + attr(n, "href") + ")")
	default:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			writeInline(s, c)
		}
	}
	s.end(n)
}

// iframeText is an iframe's title and the title of the page it embeds.
func iframeText(n *html.Node) string {
	s := "[iframe " + attr(n, "title")
	if src := attr(n, "srcdoc"); src != "" {
		s += ": " + pageTitle(src)
	}
	return s + "]"
}

// pageTitle is the title of an HTML document, or "(no title)".
func pageTitle(page string) string {
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		return "(unparsable: " + err.Error() + ")"
	}
	var find func(*html.Node) string
	find = func(n *html.Node) string {
		if n.DataAtom == atom.Title {
			return inlineText(n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if s := find(c); s != "" {
				return s
			}
		}
		return ""
	}
	if s := find(doc); s != "" {
		return s
	}
	return "(no title)"
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// TestHTMLOutline: the outline of a page keeps its words, sections, rows
// and links, and does not change when its styles do.
func TestHTMLOutline(t *testing.T) {
	page := `<!DOCTYPE html><html><head><title>a  run</title><style>p{color:red}</style></head><body>
<section id="findings"><h2>Findings <span class="muted">(ranked)</span></h2>
<ol><li class="k"><div><b>1. cpu</b> main.search</div><div>fix <a href="#flame">it</a></div></li></ol>
<table><tr><th>fn</th><th class="num">ms</th></tr><tr><td>main.a</td><td class="num">1.5 <div>±2%</div></td></tr></table>
<figure id="fig-cpu"><figcaption>CPU</figcaption><svg><text>0.5</text></svg></figure>
<pre class="src"><span>12</span>x := 1
<span>13</span>y := 2
</pre>
<iframe title="CPU flame graph" srcdoc="&lt;title&gt;cpu&lt;/title&gt;"></iframe>
<script>var x = "<p>no</p>";</script></section></body></html>`
	want := `title: a run
#findings
## Findings (ranked)
- 1. cpu main.search
  fix [it](#flame)
| fn | ms |
| main.a | 1.5 ±2% |
#fig-cpu
CPU
[svg]
    12x := 1
    13y := 2
[iframe CPU flame graph: cpu]
`
	if got := string(htmlOutline(t, []byte(page))); got != want {
		t.Errorf("outline:\n%s\nwant:\n%s", got, want)
	}
	restyled := strings.NewReplacer(`class="muted"`, `class="dim" style="color:grey"`, "p{color:red}", "p{color:blue}", `class="num"`, "").Replace(page)
	if got := string(htmlOutline(t, []byte(restyled))); got != want {
		t.Errorf("restyled, the outline changed:\n%s", got)
	}
}
