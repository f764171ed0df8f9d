package main

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"

	"github.com/tilegpu/tilegpu"
)

// Heat maps (render -heatmap): the frame, greyed, with each tile tinted by
// its cost from the render engine's tile trace, and a legend strip below.

// heatMetrics are the costs -heatmap-metric selects.
var heatMetrics = map[string]func(tilegpu.TileCost) float64{
	"instructions": func(c tilegpu.TileCost) float64 { return float64(c.Instructions) },
	"fragments":    func(c tilegpu.TileCost) float64 { return float64(c.Fragments) },
	// overdraw: fragments shaded per pixel of the tile (1 = each pixel once).
	"overdraw": func(c tilegpu.TileCost) float64 { return float64(c.Fragments) / float64(max(c.W*c.H, 1)) },
	"time":     func(c tilegpu.TileCost) float64 { return float64(c.Nanoseconds) / 1e3 },
}

var heatUnits = map[string]string{"instructions": "QPU INSTRUCTIONS", "fragments": "FRAGMENTS SHADED", "overdraw": "FRAGMENTS PER PIXEL", "time": "MICROSECONDS"}

// legendHeight is the strip under the frame: a colour ramp and labels.
const legendHeight = 40

// heatColor maps t in [0,1] to blue → cyan → green → yellow → red.
func heatColor(t float64) color.NRGBA {
	t = math.Max(0, math.Min(1, t))
	stops := [...][3]float64{{0, 0, 255}, {0, 255, 255}, {0, 255, 0}, {255, 255, 0}, {255, 0, 0}}
	x := t * float64(len(stops)-1)
	i := min(int(x), len(stops)-2)
	f := x - float64(i)
	var c [3]uint8
	for k := range c {
		c[k] = uint8(math.Round(stops[i][k] + (stops[i+1][k]-stops[i][k])*f))
	}
	return color.NRGBA{c[0], c[1], c[2], 255}
}

// heatmap draws frame with each tile tinted by metric.
func heatmap(frame *image.NRGBA, costs []tilegpu.TileCost, metric string) (*image.NRGBA, error) {
	value, ok := heatMetrics[metric]
	if !ok {
		return nil, fmt.Errorf("-heatmap-metric %q: want instructions, fragments, overdraw or time", metric)
	}
	b := frame.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewNRGBA(image.Rect(0, 0, w, h+legendHeight))
	hi := 0.0
	for _, c := range costs {
		hi = math.Max(hi, value(c))
	}
	for _, c := range costs {
		t := 0.0
		if hi > 0 {
			t = value(c) / hi
		}
		tint := heatColor(t)
		for y := c.Y; y < c.Y+c.H && y < h; y++ {
			for x := c.X; x < c.X+c.W && x < w; x++ {
				p := frame.NRGBAAt(b.Min.X+x, b.Min.Y+y)
				grey := (0.299*float64(p.R) + 0.587*float64(p.G) + 0.114*float64(p.B)) * 0.5
				mix := func(tc uint8) uint8 { return uint8(math.Round(grey*0.4 + float64(tc)*0.6)) }
				px := color.NRGBA{mix(tint.R), mix(tint.G), mix(tint.B), 255}
				if x == c.X || y == c.Y {
					px = color.NRGBA{0, 0, 0, 255} // tile grid
				}
				out.SetNRGBA(x, y, px)
			}
		}
	}
	drawLegend(out, h, w, 0, hi, heatUnits[metric])
	return out, nil
}

func formatHeat(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.2f", v)
}

// A 3×5 pixel font drawn at scale 3, for the legend's digits and words.
var glyphs = map[rune][5]string{
	'0': {"###", "#.#", "#.#", "#.#", "###"}, '1': {".#.", "##.", ".#.", ".#.", "###"},
	'2': {"###", "..#", "###", "#..", "###"}, '3': {"###", "..#", "###", "..#", "###"},
	'4': {"#.#", "#.#", "###", "..#", "..#"}, '5': {"###", "#..", "###", "..#", "###"},
	'6': {"###", "#..", "###", "#.#", "###"}, '7': {"###", "..#", ".#.", ".#.", ".#."},
	'8': {"###", "#.#", "###", "#.#", "###"}, '9': {"###", "#.#", "###", "..#", "###"},
	'.': {"...", "...", "...", "...", ".#."}, ' ': {"...", "...", "...", "...", "..."},
	'A': {"###", "#.#", "###", "#.#", "#.#"}, 'C': {"###", "#..", "#..", "#..", "###"},
	'D': {"##.", "#.#", "#.#", "#.#", "##."}, 'E': {"###", "#..", "###", "#..", "###"},
	'F': {"###", "#..", "###", "#..", "#.."}, 'G': {"###", "#..", "#.#", "#.#", "###"},
	'H': {"#.#", "#.#", "###", "#.#", "#.#"}, 'I': {"###", ".#.", ".#.", ".#.", "###"},
	'L': {"#..", "#..", "#..", "#..", "###"}, 'M': {"#.#", "###", "###", "#.#", "#.#"},
	'N': {"##.", "#.#", "#.#", "#.#", "#.#"}, 'O': {"###", "#.#", "#.#", "#.#", "###"},
	'P': {"###", "#.#", "###", "#..", "#.."}, 'Q': {".#.", "#.#", "#.#", "##.", ".##"},
	'R': {"##.", "#.#", "##.", "#.#", "#.#"}, 'S': {"###", "#..", "###", "..#", "###"},
	'T': {"###", ".#.", ".#.", ".#.", ".#."}, 'U': {"#.#", "#.#", "#.#", "#.#", "###"},
	'X': {"#.#", "#.#", ".#.", "#.#", "#.#"},
}

const glyphScale = 3

func textWidth(s string) int { return len(s) * 4 * glyphScale }

func drawText(img *image.NRGBA, x, y int, s string, c color.NRGBA) {
	for i, r := range strings.ToUpper(s) {
		g, ok := glyphs[r]
		if !ok {
			continue
		}
		for gy, row := range g {
			for gx, on := range row {
				if on != '#' {
					continue
				}
				for dy := 0; dy < glyphScale; dy++ {
					for dx := 0; dx < glyphScale; dx++ {
						px, py := x+(i*4+gx)*glyphScale+dx, y+gy*glyphScale+dy
						if image.Pt(px, py).In(img.Bounds()) {
							img.SetNRGBA(px, py, c)
						}
					}
				}
			}
		}
	}
}

// overdrawImage colours an overdraw-view frame (red = fragments shaded at
// the pixel): black where nothing was shaded, then blue → red up to the
// frame's maximum, with a legend.
func overdrawImage(counts *image.NRGBA) *image.NRGBA {
	b := counts.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewNRGBA(image.Rect(0, 0, w, h+legendHeight))
	hi := uint8(0)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			hi = max(hi, counts.NRGBAAt(b.Min.X+x, b.Min.Y+y).R)
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			n := counts.NRGBAAt(b.Min.X+x, b.Min.Y+y).R
			c := color.NRGBA{0, 0, 0, 255}
			if n > 0 {
				c = heatColor(float64(n) / float64(hi))
			}
			out.SetNRGBA(x, y, c)
		}
	}
	drawLegend(out, h, w, 0, float64(hi), "FRAGMENTS PER PIXEL")
	return out
}

// drawLegend draws the ramp and labels in the strip at y0.
func drawLegend(out *image.NRGBA, y0, w int, lo, hi float64, unit string) {
	for y := y0; y < y0+legendHeight; y++ {
		for x := 0; x < w; x++ {
			out.SetNRGBA(x, y, color.NRGBA{255, 255, 255, 255})
		}
	}
	for x := 0; x < w; x++ {
		c := heatColor(float64(x) / float64(max(w-1, 1)))
		for y := y0 + 2; y < y0+16; y++ {
			out.SetNRGBA(x, y, c)
		}
	}
	black := color.NRGBA{0, 0, 0, 255}
	drawText(out, 2, y0+20, formatHeat(lo), black)
	maxText := formatHeat(hi)
	drawText(out, w-2-textWidth(maxText), y0+20, maxText, black)
	if textWidth(unit)+textWidth(maxText)+16 < w {
		drawText(out, (w-textWidth(unit))/2, y0+20, unit, black)
	}
}
