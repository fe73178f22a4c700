package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// itemsPerDoc is how many news items each written document holds.
const itemsPerDoc = 24

var words = strings.Fields(`senate vote budget river city council school market
	storm election court judge mayor report health energy trade union bridge
	harbour museum garden science festival railway airport hospital`)

// writeDocs writes n RSS documents, doc-00000.xml on, into dir: the same
// bytes on every run. Item k of document d mentions "president" in its
// title when (d+k)%9 == 0 and in its description when (d*7+k)%5 == 0.
func writeDocs(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for d := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\">\n<channel>\n"+
			"<title>News %d</title>\n<link>https://news.example/%d</link>\n<description>Top stories, edition %d</description>\n"+
			"<pubDate>Mon, 02 Mar 2020 08:%02d:00 GMT</pubDate>\n", d, d, d, d%60)
		for k := range itemsPerDoc {
			title := sentence(d, k, 8, (d+k)%9 == 0)
			desc := sentence(d+k, k*3, 30, (d*7+k)%5 == 0)
			fmt.Fprintf(&b, "<item>\n<title>%s</title>\n<description>%s</description>\n<link>https://news.example/%d/%d</link>\n"+
				"<guid isPermaLink=\"false\">%d-%d</guid>\n</item>\n", title, desc, d, k, d, k)
		}
		b.WriteString("</channel>\n</rss>\n")
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc-%05d.xml", d)), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// sentence returns n words picked from seeds a and b, with "president" in
// the middle when mention is set.
func sentence(a, b, n int, mention bool) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[(a*13+b*7+i*5)%len(words)]
	}
	if mention {
		w[n/2] = "president"
	}
	return strings.Join(w, " ")
}
