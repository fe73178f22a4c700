package report

import (
	"bytes"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"testing"

	"perflab/internal/analysis"
)

// Machado, Oliveira and Fernandes (2009) matrices of full (severity 1.0)
// protanopia, deuteranopia and tritanopia, on linear RGB.
var cvdSimulations = map[string][3][3]float64{
	"protanopia":    {{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}},
	"deuteranopia":  {{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}},
	"tritanopia":    {{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}},
	"normal vision": {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
}

// TestSeriesColoursSurviveColourBlindness simulates the three kinds of
// colour blindness on the charts' series colours and checks every pair
// stays apart: a CIELAB distance of at least 15 (about five times what an
// eye just notices).
func TestSeriesColoursSurviveColourBlindness(t *testing.T) {
	for kind, m := range cvdSimulations {
		labs := make([][3]float64, len(seriesColors))
		for i, c := range seriesColors {
			labs[i] = toLab(simulate(m, c))
		}
		for i := range labs {
			for j := i + 1; j < len(labs); j++ {
				if d := dist(labs[i], labs[j]); d < 15 {
					t.Errorf("%s: series colours %d and %d are %.1f apart in CIELAB; want at least 15", kind, i, j, d)
				}
			}
		}
	}
}

func simulate(m [3][3]float64, c color.Color) [3]float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		x := float64(v>>8) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	in := [3]float64{lin(r), lin(g), lin(b)}
	var out [3]float64
	for i := range 3 {
		out[i] = math.Min(1, math.Max(0, m[i][0]*in[0]+m[i][1]*in[1]+m[i][2]*in[2]))
	}
	return out
}

// toLab converts linear sRGB (D65) to CIELAB.
func toLab(c [3]float64) [3]float64 {
	x := (0.4124*c[0] + 0.3576*c[1] + 0.1805*c[2]) / 0.95047
	y := 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
	z := (0.0193*c[0] + 0.1192*c[1] + 0.9505*c[2]) / 1.08883
	f := func(t float64) float64 {
		if t > 0.008856 {
			return math.Cbrt(t)
		}
		return 7.787*t + 16.0/116
	}
	return [3]float64{116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))}
}

func dist(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

// TestDiffFlamePaletteSurvivesColourBlindness checks the differential
// flame graph's diverging scale as the page draws it: black frame names
// stay readable on its ends (WCAG contrast of at least 4.5:1), and "less"
// (blue) and "more" (vermilion) stay apart, and apart from "no change",
// under each simulated colour-vision deficiency.
func TestDiffFlamePaletteSurvivesColourBlindness(t *testing.T) {
	var b bytes.Buffer
	if err := analysis.WriteDiffFlameHTML(&b, tinyCPU(3000), tinyCPU(1000), 100, 100, analysis.FlameOptions{}); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`const LESS=\[(\d+),(\d+),(\d+)\], MORE=\[(\d+),(\d+),(\d+)\], MID=\[(\d+),(\d+),(\d+)\]`).FindStringSubmatch(b.String())
	if m == nil {
		t.Fatal("the diff flame page does not define its LESS, MORE and MID colours")
	}
	var cs [3]color.RGBA
	for i := range cs {
		var v [3]uint8
		for j := range v {
			n, _ := strconv.Atoi(m[1+3*i+j])
			v[j] = uint8(n)
		}
		cs[i] = color.RGBA{v[0], v[1], v[2], 0xff}
	}
	less, more, mid := cs[0], cs[1], cs[2]
	for name, c := range map[string]color.RGBA{"less": less, "more": more} {
		lin := simulate(cvdSimulations["normal vision"], c)
		if contrast := (0.2126*lin[0] + 0.7152*lin[1] + 0.0722*lin[2] + 0.05) / 0.05; contrast < 4.5 {
			t.Errorf("black text on %q (%v): contrast %.1f:1, want at least 4.5:1", name, c, contrast)
		}
	}
	for kind, sim := range cvdSimulations {
		l, mo, mi := toLab(simulate(sim, less)), toLab(simulate(sim, more)), toLab(simulate(sim, mid))
		if d := dist(l, mo); d < 15 {
			t.Errorf("%s: less and more are %.1f apart in CIELAB; want at least 15", kind, d)
		}
		if d := min(dist(l, mi), dist(mo, mi)); d < 15 {
			t.Errorf("%s: an end of the scale is %.1f from no change; want at least 15", kind, d)
		}
	}
}
