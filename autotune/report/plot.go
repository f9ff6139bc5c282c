package report

import (
	"bytes"
	"cmp"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/gemmroute/gemmroute/internal/fileio"
)

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// plotName is the file name of the roofline plot of title.
func plotName(title string) string {
	return "roofline-" + unsafeChars.ReplaceAllString(title, "_") + ".png"
}

// powersOfTwo ticks a log axis at 1, 2, 4, …
type powersOfTwo struct{}

// Ticks implements plot.Ticker.
func (powersOfTwo) Ticks(lo, hi float64) []plot.Tick {
	if !finiteRange(lo, hi) {
		return nil
	}
	var ts []plot.Tick
	for v := 1.0; v <= hi*1.0001; v *= 2 {
		if v >= lo*0.9999 {
			ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		}
	}
	return ts
}

// oneTwoFive ticks a log axis at 1, 2 and 5 times powers of ten.
type oneTwoFive struct{}

// Ticks implements plot.Ticker.
func (oneTwoFive) Ticks(lo, hi float64) []plot.Tick {
	if !finiteRange(lo, hi) {
		return nil
	}
	var ts []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, f := range []float64{1, 2, 5} {
			if v := f * math.Pow(10, e); v >= lo*0.9999 && v <= hi*1.0001 {
				ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
			}
		}
	}
	return ts
}

// finiteRange reports whether [lo, hi] is a range a log axis can tick:
// positive and finite (the tick loops end).
func finiteRange(lo, hi float64) bool {
	return lo > 0 && hi >= lo && hi <= math.MaxFloat64
}

// rooflinePlot draws achieved TFLOP/s against M for gemmroute and cuBLAS
// beside the roofline (Ceilings.RooflineUS as a rate) for rows of one weight.
func rooflinePlot(out fileio.Outputs, path, title string, rows []BenchRow, c Ceilings) error {
	rows = slices.SortedFunc(slices.Values(rows), func(a, b BenchRow) int { return cmp.Compare(a.M, b.M) })
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s (N=%d, K=%d)", title, rows[0].N, rows[0].K)
	p.X.Label.Text, p.Y.Label.Text = "M (tokens)", "TFLOP/s"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = powersOfTwo{}, oneTwoFive{}
	var ours, peer, roof plotter.XYs
	for _, r := range rows {
		flops, _ := Work(r.M, r.N, r.K, r.Types)
		x := float64(r.M)
		ours = append(ours, plotter.XY{X: x, Y: flops / r.GraphUS / 1e6})
		if r.PeerUS > 0 {
			peer = append(peer, plotter.XY{X: x, Y: flops / r.PeerUS / 1e6})
		}
		roof = append(roof, plotter.XY{X: x, Y: flops / c.RooflineUS(r.Shape) / 1e6})
	}
	for _, s := range []struct {
		label string
		xys   plotter.XYs
	}{{"roofline", roof}, {"gemmroute", ours}, {"cuBLAS", peer}} {
		if len(s.xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(s.xys)
		if err != nil {
			return err
		}
		switch s.label {
		case "roofline":
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		case "cuBLAS":
			l.Color, pts.Color = plotColor(200, 60, 40), plotColor(200, 60, 40)
		default:
			l.Color, pts.Color = plotColor(30, 90, 200), plotColor(30, 90, 200)
		}
		p.Add(l, pts)
		p.Legend.Add(s.label, l, pts)
	}
	// Explicit ranges: gonum pads a one-point axis down to zero, which a
	// log scale cannot draw.
	p.X.Min, p.X.Max = float64(rows[0].M)/1.5, float64(rows[len(rows)-1].M)*1.5
	p.Y.Min, p.Y.Max = math.Inf(1), 0
	for _, xys := range []plotter.XYs{ours, peer, roof} {
		for _, xy := range xys {
			p.Y.Min, p.Y.Max = math.Min(p.Y.Min, xy.Y/1.5), math.Max(p.Y.Max, xy.Y*1.5)
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	w, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, "png")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return err
	}
	return out.Write(path, buf.Bytes())
}

func plotColor(r, g, b uint8) color.Color { return color.RGBA{R: r, G: g, B: b, A: 255} }
