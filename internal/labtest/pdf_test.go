package labtest

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"math"
	"testing"
)

// testPDF writes a PDF as Chromium's printer does: a page tree, US Letter
// pages, and each page's content stream Flate-compressed.
func testPDF(pages ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	kids := ""
	for i, content := range pages {
		page, stream := 10+2*i, 11+2*i
		kids += fmt.Sprintf("%d 0 R ", page)
		fmt.Fprintf(&b, "%d 0 obj\n<</Type /Page\n/MediaBox [0 0 612 792]\n/Contents %d 0 R\n/Parent 2 0 R>>\nendobj\n", page, stream)
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write([]byte(content))
		w.Close()
		fmt.Fprintf(&b, "%d 0 obj\n<</Filter /FlateDecode\n/Length %d>> stream\n", stream, z.Len())
		b.Write(z.Bytes())
		b.WriteString("\nendstream\nendobj\n")
	}
	fmt.Fprintf(&b, "2 0 obj\n<</Type /Pages\n/Count %d\n/Kids [%s]>>\nendobj\n", len(pages), kids)
	b.WriteString("1 0 obj\n<</Type /Catalog\n/Pages 2 0 R>>\nendobj\ntrailer\n<</Root 1 0 R>>\n%%EOF\n")
	return b.Bytes()
}

// Chromium's pages start with this: CSS pixels (y down) to points, then
// the white paper.
const paper = ".24 0 0 -.24 0 792 cm\nq\n1 1 1 RG 1 1 1 rg\n0 0 2550 3300 re\nf\nQ\n"

func TestPageFill(t *testing.T) {
	pdf := testPDF(
		// Text down to 1,650 px of 3,300 (a line at 1,600, the next 50 px
		// below it): half the page.
		paper+"q\n0 0 0 rg\nBT\n/F5 16 Tf\n1 0 0 -1 45 1600 Tm\n<0039> Tj\n0 -50 Td <0048> Tj\nET\nQ\n",
		// The paper alone: blank.
		paper,
		// A grey rule at 3,000 px and an image above it, under a nested
		// transformation.
		paper+"q\n1 0 0 1 0 1000 cm\n.9 .9 .9 RG\n0 2000 m\n100 2000 l\nS\nq\n100 0 0 100 0 0 cm\n/X1 Do\nQ\nQ\n",
	)
	got, err := PageFill(pdf)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.5, 0, 3000.0 / 3300}
	if len(got) != len(want) {
		t.Fatalf("PageFill = %.3f; want %.3f", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 0.001 {
			t.Errorf("PageFill = %.3f; want %.3f", got, want)
		}
	}
}

func TestPageFillRefusesWhatItCannotRead(t *testing.T) {
	for name, pdf := range map[string][]byte{
		"no page tree":        []byte("%PDF-1.4\n1 0 obj\n<</Type /Catalog>>\nendobj\n"),
		"indirect length":     []byte("%PDF-1.4\n2 0 obj\n<</Type /Pages /Kids []>>\nendobj\n3 0 obj\n<</Length 4 0 R>> stream\nxx\nendstream\nendobj\n"),
		"stream past the end": []byte("%PDF-1.4\n3 0 obj\n<</Length 400>> stream\nxx\nendstream\nendobj\n"),
	} {
		if _, err := PageFill(pdf); err == nil {
			t.Errorf("%s: PageFill gave no error", name)
		}
	}
}

func FuzzPageFill(f *testing.F) {
	f.Add(testPDF(paper + "BT\n1 0 0 -1 45 1600 Tm\n<0039> Tj\nET\n"))
	f.Add(testPDF("q q Q Q Q cm (a\\)b) Tj <<>> <</A <<>>>> [1 2] TJ 1 re f"))
	f.Fuzz(func(t *testing.T, pdf []byte) {
		fills, err := PageFill(pdf)
		for _, v := range fills {
			if err == nil && math.IsNaN(v) {
				t.Errorf("PageFill gave NaN")
			}
		}
	})
}
