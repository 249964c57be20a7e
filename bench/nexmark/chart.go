package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Chart colours: streamdb, PostgreSQL, grid, text.
var (
	colStreamdb = color.RGBA{0x1f, 0x77, 0xb4, 0xff}
	colPostgres = color.RGBA{0xff, 0x7f, 0x0e, 0xff}
	colGrid     = color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
	colText     = color.RGBA{0x22, 0x22, 0x22, 0xff}
)

// Chart geometry in pixels.
const (
	chartWidth  = 960
	chartLeft   = 60  // the query labels
	chartRight  = 110 // room for the value after the longest bar
	chartTop    = 56  // title and legend
	chartBottom = 34  // the axis labels
	barHeight   = 12
	rowHeight   = 2*barHeight + 10
)

// writeChart draws throughput per query as pairs of horizontal bars,
// streamdb above PostgreSQL, on a log scale (the two differ by orders of
// magnitude), with each bar's value printed after it. Queries without a
// number get no bar.
func writeChart(w io.Writer, title string, results []result) error {
	height := chartTop + len(results)*rowHeight + chartBottom
	img := image.NewRGBA(image.Rect(0, 0, chartWidth, height))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)

	lo, hi := logRange(results)
	plotW := chartWidth - chartLeft - chartRight
	x := func(v float64) int {
		return chartLeft + int(float64(plotW)*(math.Log10(v)-lo)/(hi-lo))
	}
	for d := lo; d <= hi; d++ {
		gx := x(math.Pow(10, d))
		fill(img, image.Rect(gx, chartTop-4, gx+1, height-chartBottom+4), colGrid)
		label := fmt.Sprintf("1e%d", int(d))
		text(img, gx-len(label)*7/2, height-chartBottom+18, label, colText)
	}
	text(img, chartLeft, 18, title, colText)
	fill(img, image.Rect(chartLeft, 30, chartLeft+12, 42), colStreamdb)
	text(img, chartLeft+18, 41, "streamdb", colText)
	fill(img, image.Rect(chartLeft+100, 30, chartLeft+112, 42), colPostgres)
	text(img, chartLeft+118, 41, "PostgreSQL 15 (batch insert + REFRESH MATERIALIZED VIEW)", colText)

	for i, r := range results {
		y := chartTop + i*rowHeight
		text(img, 8, y+barHeight+5, r.Query, colText)
		for j, bar := range []struct {
			v *float64
			c color.Color
		}{{r.StreamdbEPS, colStreamdb}, {r.PostgresEPS, colPostgres}} {
			by := y + j*barHeight
			if bar.v == nil || *bar.v <= 0 {
				text(img, chartLeft+4, by+barHeight-2, "n/a", colText)
				continue
			}
			bx := max(x(*bar.v), chartLeft+1)
			fill(img, image.Rect(chartLeft, by, bx, by+barHeight-1), bar.c)
			text(img, bx+4, by+barHeight-2, humanRate(*bar.v), colText)
		}
	}
	return png.Encode(w, img)
}

// logRange returns whole decades lo < hi that contain every value.
func logRange(results []result) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, r := range results {
		for _, v := range []*float64{r.StreamdbEPS, r.PostgresEPS} {
			if v != nil && *v > 0 {
				lo, hi = math.Min(lo, math.Log10(*v)), math.Max(hi, math.Log10(*v))
			}
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 1
	}
	lo, hi = math.Floor(lo), math.Ceil(hi)
	if hi == lo {
		hi++
	}
	return lo, hi
}

func fill(img draw.Image, r image.Rectangle, c color.Color) {
	draw.Draw(img, r, &image.Uniform{C: c}, image.Point{}, draw.Src)
}

// text draws s with its baseline at (x, y) in the 7×13 fixed font.
func text(img draw.Image, x, y int, s string, c color.Color) {
	d := font.Drawer{Dst: img, Src: &image.Uniform{C: c}, Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

// humanRate formats events per second compactly: 950, 12.3k, 4.56M.
func humanRate(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.3g", v)
}
