package labtest

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// PageFill reads a PDF as Chromium prints it and returns, for each page in
// order, how far down the page its text and images reach, as a fraction of
// the page's height: 0 for a blank page, 0.5 for a page whose lower half is
// empty. It reads what Chromium's printer (Skia) writes: objects with
// direct stream lengths, Flate-compressed content streams, and no object
// streams; a PDF outside that is an error, not a guess.
func PageFill(pdf []byte) ([]float64, error) {
	objs, err := pdfObjects(pdf)
	if err != nil {
		return nil, err
	}
	root := -1
	for n, o := range objs {
		if pagesType.Match(o.dict) && !bytes.Contains(o.dict, []byte("/Parent")) {
			root = n
		}
	}
	if root < 0 {
		return nil, fmt.Errorf("reading PDF: no page tree")
	}
	pages, err := pdfPages(objs, root, 0)
	if err != nil {
		return nil, err
	}
	var fills []float64
	for _, p := range pages {
		box := mediaBox.FindSubmatch(objs[p].dict)
		if box == nil {
			return nil, fmt.Errorf("reading PDF: page %d has no media box", p)
		}
		height, _ := strconv.ParseFloat(string(box[1]), 64)
		var content []byte
		for _, ref := range contentsRef.FindAllSubmatch(objs[p].dict, -1) {
			n, _ := strconv.Atoi(string(ref[1]))
			s, err := objs[n].data()
			if err != nil {
				return nil, fmt.Errorf("reading PDF page %d: %w", p, err)
			}
			content = append(content, s...)
		}
		low, ok := lowestMark(content)
		fill := 0.0
		if ok {
			fill = (height - low) / height
		}
		fills = append(fills, fill)
	}
	return fills, nil
}

var (
	objStart    = regexp.MustCompile(`(?m)^(\d+) 0 obj\s*`)
	pagesType   = regexp.MustCompile(`/Type\s*/Pages\b`)
	pageType    = regexp.MustCompile(`/Type\s*/Page\b`)
	kidsRefs    = regexp.MustCompile(`/Kids\s*\[([^\]]*)\]`)
	ref         = regexp.MustCompile(`(\d+) 0 R`)
	mediaBox    = regexp.MustCompile(`/MediaBox\s*\[\s*[-\d.]+\s+[-\d.]+\s+[-\d.]+\s+([-\d.]+)\s*\]`)
	contentsRef = regexp.MustCompile(`/Contents\s*(\d+) 0 R`)
	lengthKey   = regexp.MustCompile(`/Length\s+(\d+)(\s+\d+\s+R)?`)
)

// pdfObject is one indirect object: its dictionary (or value) and, for a
// stream, its raw data.
type pdfObject struct {
	dict, stream []byte
}

// data is the object's stream, inflated when it is Flate-compressed.
func (o pdfObject) data() ([]byte, error) {
	if !bytes.Contains(o.dict, []byte("/FlateDecode")) {
		return o.stream, nil
	}
	r, err := zlib.NewReader(bytes.NewReader(o.stream))
	if err != nil {
		return nil, fmt.Errorf("inflating a stream: %w", err)
	}
	return io.ReadAll(r)
}

// pdfObjects finds the file's objects, skipping each stream by its length
// so that its bytes are never read as objects.
func pdfObjects(pdf []byte) (map[int]pdfObject, error) {
	objs := map[int]pdfObject{}
	for at := 0; ; {
		m := objStart.FindSubmatchIndex(pdf[at:])
		if m == nil {
			return objs, nil
		}
		n, _ := strconv.Atoi(string(pdf[at+m[2] : at+m[3]]))
		body := at + m[1]
		end := bytes.Index(pdf[body:], []byte("endobj"))
		if end < 0 {
			return nil, fmt.Errorf("reading PDF: object %d has no end", n)
		}
		o := pdfObject{dict: pdf[body : body+end]}
		if s := bytes.Index(o.dict, []byte("stream")); s >= 0 && bytes.HasPrefix(bytes.TrimSpace(o.dict[:s]), []byte("<<")) {
			o.dict = pdf[body : body+s]
			l := lengthKey.FindSubmatch(o.dict)
			if l == nil || l[2] != nil {
				return nil, fmt.Errorf("reading PDF: stream %d has no direct /Length", n)
			}
			size, err := strconv.Atoi(string(l[1]))
			start := body + s + len("stream")
			if start < len(pdf) && pdf[start] == '\r' {
				start++
			}
			start++ // the end of line after "stream"
			if err != nil || start > len(pdf) || size > len(pdf)-start {
				return nil, fmt.Errorf("reading PDF: stream %d runs past the file", n)
			}
			o.stream = pdf[start : start+size]
			after := bytes.Index(pdf[start+size:], []byte("endobj"))
			if after < 0 {
				return nil, fmt.Errorf("reading PDF: object %d has no end", n)
			}
			end = start + size + after - body
		}
		objs[n] = o
		at = body + end + len("endobj")
	}
}

// pdfPages lists the page objects under the page tree node n, in order.
func pdfPages(objs map[int]pdfObject, n, depth int) ([]int, error) {
	o, ok := objs[n]
	switch {
	case !ok:
		return nil, fmt.Errorf("reading PDF: page tree refers to missing object %d", n)
	case depth > 32:
		return nil, fmt.Errorf("reading PDF: page tree deeper than 32")
	case pageType.Match(o.dict):
		return []int{n}, nil
	}
	kids := kidsRefs.FindSubmatch(o.dict)
	if kids == nil {
		return nil, fmt.Errorf("reading PDF: page tree node %d has no kids", n)
	}
	var pages []int
	for _, r := range ref.FindAllSubmatch(kids[1], -1) {
		k, _ := strconv.Atoi(string(r[1]))
		ps, err := pdfPages(objs, k, depth+1)
		if err != nil {
			return nil, err
		}
		pages = append(pages, ps...)
	}
	return pages, nil
}

// matrix is a PDF transformation [a b c d e f].
type matrix [6]float64

func (m matrix) times(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func (m matrix) y(x, y float64) float64 { return m[1]*x + m[3]*y + m[5] }

var identity = matrix{1, 0, 0, 1, 0, 0}

// lowestMark runs a page's content stream far enough to place what it
// draws (text, images, and lines and shapes in any colour but white) and
// returns the lowest y of it in page space; ok is false when the page
// draws nothing. A white fill is the paper's own colour, which Chromium
// paints under every page.
func lowestMark(content []byte) (low float64, ok bool) {
	ctm, tm, tlm := identity, identity, identity
	var stack []matrix
	var nums, path []float64 // path: the y of the current path's points
	white := map[string]bool{"fill": true, "stroke": false}
	mark := func(y float64) {
		if !ok || y < low {
			low, ok = y, true
		}
	}
	for _, tok := range contentTokens(content) {
		if f, err := strconv.ParseFloat(tok, 64); err == nil {
			nums = append(nums, f)
			continue
		}
		if strings.ContainsAny(tok[:1], "/[]<(") {
			continue // an operand other than a number
		}
		switch tok {
		case "q":
			stack = append(stack, ctm)
		case "Q":
			if len(stack) > 0 {
				ctm, stack = stack[len(stack)-1], stack[:len(stack)-1]
			}
		case "cm", "Tm":
			if len(nums) >= 6 {
				var m matrix
				copy(m[:], nums[len(nums)-6:])
				if tok == "cm" {
					ctm = m.times(ctm)
				} else {
					tm, tlm = m, m
				}
			}
		case "BT":
			tm, tlm = identity, identity
		case "Td", "TD":
			if len(nums) >= 2 {
				tlm = matrix{1, 0, 0, 1, nums[len(nums)-2], nums[len(nums)-1]}.times(tlm)
				tm = tlm
			}
		case "Tj", "TJ", "'", `"`:
			mark(tm.times(ctm).y(0, 0))
		case "Do":
			// An image fills the unit square under the CTM.
			mark(min(ctm.y(0, 0), ctm.y(0, 1), ctm.y(1, 0), ctm.y(1, 1)))
		case "rg", "g", "k", "RG", "G", "K":
			side := "fill"
			if tok == strings.ToUpper(tok) {
				side = "stroke"
			}
			w := len(nums) > 0
			for _, v := range nums {
				w = w && (tok == "k" || tok == "K") == (v == 0) && (v == 0 || v == 1)
			}
			white[side] = w
		case "m", "l", "c", "v", "y":
			for k := 0; k+1 < len(nums); k += 2 {
				path = append(path, ctm.y(nums[k], nums[k+1]))
			}
		case "re":
			if len(nums) >= 4 {
				x, y, w, h := nums[len(nums)-4], nums[len(nums)-3], nums[len(nums)-2], nums[len(nums)-1]
				path = append(path, ctm.y(x, y), ctm.y(x+w, y+h), ctm.y(x, y+h), ctm.y(x+w, y))
			}
		case "f", "F", "f*", "S", "s", "B", "B*", "b", "b*", "n":
			stroked := tok != "f" && tok != "F" && tok != "f*" && tok != "n"
			filled := tok != "S" && tok != "s" && tok != "n"
			if (filled && !white["fill"]) || (stroked && !white["stroke"]) {
				for _, y := range path {
					mark(y)
				}
			}
			path = path[:0]
		}
		nums = nums[:0]
	}
	return low, ok
}

// contentTokens splits a content stream into numbers, operators and
// operands; strings and dictionaries come back as one opaque token each.
func contentTokens(s []byte) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0:
			i++
		case c == '%':
			for i < len(s) && s[i] != '\n' && s[i] != '\r' {
				i++
			}
		case c == '(':
			j, depth := i+1, 1
			for ; j < len(s) && depth > 0; j++ {
				switch s[j] {
				case '\\':
					j++
				case '(':
					depth++
				case ')':
					depth--
				}
			}
			out, i = append(out, "("), j
		case c == '<' && i+1 < len(s) && s[i+1] == '<':
			j, depth := i, 0
			for ; j+1 < len(s); j++ {
				if s[j] == '<' && s[j+1] == '<' {
					depth++
					j++
				} else if s[j] == '>' && s[j+1] == '>' {
					depth--
					j++
					if depth == 0 {
						break
					}
				}
			}
			out, i = append(out, "<<"), j+1
		case c == '<':
			j := bytes.IndexByte(s[i:], '>')
			if j < 0 {
				return out
			}
			out, i = append(out, "<"), i+j+1
		case c == '[' || c == ']':
			out, i = append(out, string(c)), i+1
		default:
			j := i + 1
			for j < len(s) && !bytes.ContainsRune([]byte(" \n\r\t\f\x00()<>[]/%"), rune(s[j])) {
				j++
			}
			out, i = append(out, string(s[i:j])), j
		}
	}
	return out
}
