// Package chart draws the charts of servesim's reports and plots in one
// style: lines and points on numeric axes, or grouped bars over
// categories, with shaded bands (a λ* bracket) and reference lines (a
// target), as SVG (standalone or inline in HTML) or PNG at 192 dpi.
//
// The style is fixed so that every command draws alike: Okabe and Ito's
// colour-blind-safe palette with a marker shape per series, Liberation
// Sans (Arial's metrics), the legend above the plot area and never over
// the data, a unit on every axis title ("p99 TTFT (ms)"), and ticks at
// 1, 2, 2.5 and 5 × 10^k that stay readable for any range: a single point
// or equal values get a padded range with at least MinTicks distinct
// labels.
//
// A Chart is a plain value; build one literally and write it with
// WriteFile, WriteSVG, WritePNG or InlineSVG. The SVG output marks each
// element's role with a class (plot-area, legend-box, tick-label, point,
// bar, band, ...), which tests read. Drawing is safe for concurrent use.
package chart
