//! SVG plots: one run over time ([`run_plot`]) and the comparison
//! report's grouped bar charts ([`bar_chart`]). Drawn from simulated
//! numbers only, so the same run gives the same file.

use std::{error::Error, path::Path};

use neqo_fc_sim::metrics::Sample;
use plotters::{
    prelude::*,
    style::text_anchor::{HPos, Pos, VPos},
};

use crate::error::LabError;

type PlotResult = Result<(), Box<dyn Error>>;

/// Ten distinguishable colours (the "tab10" palette), picked in order.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];
/// Reference lines (BDP, link rate): dark, so they stand out of the grid.
const REFERENCE: RGBColor = RGBColor(40, 40, 40);
const FONT: &str = "sans-serif";

/// Windows at or above this are "unlimited" and drawn clipped to the top.
const UNLIMITED: u64 = 1 << 61;
/// Label suffix of windows drawn clipped.
const OFF_SCALE: &str = " (unlimited: off scale)";
/// Most points drawn per line (longer series are bucketed).
const MAX_POINTS: usize = 1500;

fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

fn plot_err(path: &Path, e: &dyn Error) -> LabError {
    LabError::Plot {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

/// One bucket of samples: maxima of the levels, the last delivered count.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Point {
    t: f64,
    stream_window: u64,
    conn_window: u64,
    cwnd: u64,
    in_flight: u64,
    delivered: u64,
    goodput_bps: f64,
}

/// Buckets `samples` into at most [`MAX_POINTS`] points: levels are the
/// bucket's maxima (so peaks survive), goodput is the delivered bytes over
/// the bucket's span.
#[allow(clippy::cast_precision_loss)]
fn bucket(samples: &[Sample]) -> Vec<Point> {
    let per = samples.len().div_ceil(MAX_POINTS).max(1);
    let mut points = Vec::with_capacity(samples.len() / per + 1);
    let (mut prev_t, mut prev_delivered) = (0.0, 0u64);
    for chunk in samples.chunks(per) {
        let mut p = Point::default();
        for s in chunk {
            p.stream_window = p.stream_window.max(s.stream_window);
            p.conn_window = p.conn_window.max(s.conn_window);
            p.cwnd = p.cwnd.max(s.cwnd);
            p.in_flight = p.in_flight.max(s.bytes_in_flight);
        }
        let last = chunk[chunk.len() - 1];
        p.t = last.time.as_secs_f64();
        p.delivered = last.delivered;
        let dt = p.t - prev_t;
        p.goodput_bps = if dt > 0.0 {
            last.delivered.saturating_sub(prev_delivered) as f64 * 8.0 / dt
        } else {
            0.0
        };
        prev_t = p.t;
        prev_delivered = last.delivered;
        points.push(p);
    }
    points
}

/// Writes the over-time plot of one run to `path` (SVG, 1000 × 960), with
/// the link rate and BDP as reference lines; unlimited windows are clipped
/// to the top of their panel and labelled so.
///
/// # Errors
/// [`LabError::Plot`] when the file cannot be written.
pub fn run_plot(
    path: &Path,
    title: &str,
    samples: &[Sample],
    link_rate_bps: u64,
    bdp_bytes: u64,
) -> Result<(), LabError> {
    draw_run(path, title, samples, link_rate_bps, bdp_bytes).map_err(|e| plot_err(path, &*e))
}

#[allow(clippy::cast_precision_loss, clippy::too_many_lines)]
fn draw_run(
    path: &Path,
    title: &str,
    samples: &[Sample],
    link_rate_bps: u64,
    bdp_bytes: u64,
) -> PlotResult {
    const MIB: f64 = 1_048_576.0;
    let points = bucket(samples);
    let t_max = points.last().map_or(1.0, |p| p.t).max(1e-6);

    let root = SVGBackend::new(path, (1000, 960)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, (FONT, 20))?;
    let panels = root.split_evenly((3, 1));

    let thick = |i| colour(i).stroke_width(2);
    let thin = REFERENCE.stroke_width(1);

    // Panel 1: receive windows against the BDP.
    let finite = |v: u64| v < UNLIMITED;
    let window_max = points
        .iter()
        .flat_map(|p| [p.stream_window, p.conn_window])
        .filter(|&v| finite(v))
        .max()
        .unwrap_or(0)
        .max(bdp_bytes);
    let top = (window_max as f64 / MIB * 1.1).max(0.01);
    let clipped = points
        .iter()
        .any(|p| !finite(p.stream_window) || !finite(p.conn_window));
    let off_scale = if clipped { OFF_SCALE } else { "" };
    let clip = |v: u64| (v as f64 / MIB).min(top);
    let mut chart = time_panel(&panels[0], "receive windows (client)", t_max, top, "MiB")?;
    let stream = points.iter().map(|p| (p.t, clip(p.stream_window)));
    let label = format!("stream window (largest){off_scale}");
    line(&mut chart, stream, &label, thick(0))?;
    let conn = points.iter().map(|p| (p.t, clip(p.conn_window)));
    let label = format!("connection window{off_scale}");
    line(&mut chart, conn, &label, thick(1))?;
    let bdp = bdp_bytes as f64 / MIB;
    line(&mut chart, [(0.0, bdp), (t_max, bdp)], "BDP", thin)?;
    legend(&mut chart)?;

    // Panel 2: the sender's congestion window and bytes in flight.
    let sender_max = points
        .iter()
        .flat_map(|p| [p.cwnd, p.in_flight])
        .max()
        .unwrap_or(0);
    let top = (sender_max as f64 / MIB * 1.1).max(0.01);
    let caption = "sender: congestion window and bytes in flight";
    let mut chart = time_panel(&panels[1], caption, t_max, top, "MiB")?;
    let cwnd = points.iter().map(|p| (p.t, p.cwnd as f64 / MIB));
    line(&mut chart, cwnd, "cwnd", thick(2))?;
    let in_flight = points.iter().map(|p| (p.t, p.in_flight as f64 / MIB));
    line(&mut chart, in_flight, "bytes in flight", thick(3))?;
    legend(&mut chart)?;

    // Panel 3: goodput against the link rate.
    let link = link_rate_bps as f64 / 1e6;
    let goodput_max = points.iter().map(|p| p.goodput_bps).fold(0.0, f64::max) / 1e6;
    let top = (goodput_max.max(link) * 1.1).max(0.001);
    let caption = "goodput (bytes read by the application)";
    let mut chart = time_panel(&panels[2], caption, t_max, top, "Mbit/s")?;
    let goodput = points.iter().map(|p| (p.t, p.goodput_bps / 1e6));
    line(&mut chart, goodput, "goodput", thick(4))?;
    line(&mut chart, [(0.0, link), (t_max, link)], "link rate", thin)?;
    legend(&mut chart)?;
    root.present()?;
    Ok(())
}

/// One panel of [`run_plot`]: time on x (0 to `t_max` seconds), `unit` on y
/// (0 to `top`).
type TimePanel<'a> = ChartContext<
    'a,
    SVGBackend<'a>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// A [`TimePanel`] with its caption and mesh drawn.
fn time_panel<'a>(
    area: &DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
    caption: &str,
    t_max: f64,
    top: f64,
    unit: &str,
) -> Result<TimePanel<'a>, Box<dyn Error>> {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 16))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..t_max, 0f64..top)?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc(unit)
        .draw()?;
    Ok(chart)
}

/// Draws one line and its legend entry.
fn line(
    chart: &mut TimePanel<'_>,
    data: impl IntoIterator<Item = (f64, f64)>,
    label: &str,
    style: ShapeStyle,
) -> PlotResult {
    chart
        .draw_series(LineSeries::new(data, style))?
        .label(label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    Ok(())
}

/// Draws the legend, lower right.
fn legend(chart: &mut TimePanel<'_>) -> PlotResult {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

/// The value axis of a [`bar_chart`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// Linear from 0 to `max`; larger values are clipped.
    Linear {
        /// Largest value drawn.
        max: f64,
    },
    /// Logarithmic from `min` to `max` (both > 0); values outside are
    /// clipped.
    Log {
        /// Smallest value drawn.
        min: f64,
        /// Largest value drawn.
        max: f64,
    },
}

/// One series of a bar chart: a name (legend), its colour and a value per
/// category (`None` = no result, drawn as "n/a"; infinite = unlimited,
/// drawn to the edge and labelled `∞`).
#[derive(Clone, Debug, PartialEq)]
pub struct BarSeries {
    /// Legend label.
    pub label: String,
    /// Bar colour (RGB).
    pub colour: (u8, u8, u8),
    /// Values by category index.
    pub values: Vec<Option<f64>>,
}

/// Writes a horizontal grouped bar chart to `path` (SVG): categories top to
/// bottom, a bar per series in each, labelled with `value_label`.
///
/// # Errors
/// [`LabError::Plot`] when the file cannot be written or the scale is
/// empty.
pub fn bar_chart(
    path: &Path,
    title: &str,
    axis: &str,
    categories: &[String],
    series: &[BarSeries],
    scale: Scale,
    value_label: &dyn Fn(f64) -> String,
) -> Result<(), LabError> {
    draw_bars(path, title, axis, categories, series, scale, value_label)
        .map_err(|e| plot_err(path, &*e))
}

#[allow(clippy::cast_precision_loss, clippy::too_many_arguments)]
fn draw_bars(
    path: &Path,
    title: &str,
    axis: &str,
    categories: &[String],
    series: &[BarSeries],
    scale: Scale,
    value_label: &dyn Fn(f64) -> String,
) -> PlotResult {
    let n_cat = categories.len().max(1);
    let n_ser = series.len().max(1);
    let bar_px = 13;
    let height = u32::try_from(110 + n_cat * (n_ser * bar_px + 14)).unwrap_or(4000);
    // Positions on the value axis: log10 of the value for a log scale.
    let (lo, hi, max_value, to_x): (f64, f64, f64, fn(f64) -> f64) = match scale {
        Scale::Linear { max } => (0.0, max, max, |v| v),
        Scale::Log { min, max } => (min.log10(), max.log10(), max, f64::log10),
    };
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
        return Err("empty value range".into());
    }
    // Room on the right for the legend.
    let right = hi + (hi - lo) * 0.3;

    let root = SVGBackend::new(path, (1000, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FONT, 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(200)
        .build_cartesian_2d(lo..right, 0f64..n_cat as f64)?;
    let is_log = matches!(scale, Scale::Log { .. });
    let fmt_axis = move |x: &f64| {
        if is_log {
            let v = 10f64.powf(*x);
            if v >= 1.0 {
                format!("{v:.0}")
            } else {
                format!("{v}")
            }
        } else {
            format!("{x}")
        }
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .light_line_style(WHITE)
        .y_labels(0)
        .x_desc(axis)
        .x_label_formatter(&fmt_axis)
        .draw()?;

    let label_style = TextStyle::from((FONT, 10).into_font());
    let cat_y = |i: usize| (n_cat - 1 - i) as f64;
    let band = 0.84 / n_ser as f64;
    // A bar below a log axis's floor is drawn as a stub (so it does not
    // vanish) and labelled with its value.
    let stub = (hi - lo) * 0.008;
    for (j, s) in series.iter().enumerate() {
        let c = RGBColor(s.colour.0, s.colour.1, s.colour.2);
        let mut bars = Vec::new();
        let mut texts = Vec::new();
        for (i, value) in s.values.iter().enumerate().take(n_cat) {
            let y1 = cat_y(i) + 0.92 - band * j as f64;
            let y0 = y1 - band * 0.9;
            let ymid = (y0 + y1) / 2.0;
            match value {
                Some(v) if v.is_infinite() => {
                    bars.push(Rectangle::new([(lo, y0), (hi, y1)], c.filled()));
                    texts.push(("∞".to_owned(), (hi, ymid)));
                }
                Some(v) if !v.is_nan() => {
                    let x = if *v > 0.0 { to_x(*v) } else { lo };
                    let x = x.clamp(lo, hi).max(lo + stub);
                    bars.push(Rectangle::new([(lo, y0), (x, y1)], c.filled()));
                    let text = if *v > max_value {
                        format!(">{}", value_label(max_value))
                    } else {
                        value_label(*v)
                    };
                    texts.push((text, (x, ymid)));
                }
                _ => texts.push(("n/a".to_owned(), (lo, ymid))),
            }
        }
        chart
            .draw_series(bars)?
            .label(s.label.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], c.filled()));
        chart.draw_series(texts.into_iter().map(|(t, (x, y))| {
            Text::new(
                format!(" {t}"),
                (x, y),
                label_style.clone().pos(Pos::new(HPos::Left, VPos::Center)),
            )
        }))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;

    // Category names in the label area, centred on their bands.
    let cat_style =
        TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    for (i, name) in categories.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(lo, cat_y(i) + 0.5));
        root.draw(&Text::new(name.clone(), (px - 8, py), cat_style.clone()))?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn sample(ms: u64, delivered: u64, window: u64) -> Sample {
        Sample {
            time: Duration::from_millis(ms),
            stream_window: window,
            conn_window: window * 2,
            cwnd: 10,
            bytes_in_flight: 5,
            delivered,
            recv_buffer: 0,
            total_credit: 0,
        }
    }

    #[test]
    fn buckets_keep_peaks_and_rates() {
        let samples: Vec<Sample> = (1..=3000)
            .map(|i| sample(i, i * 1000, if i == 1234 { 999 } else { 1 }))
            .collect();
        let points = bucket(&samples);
        assert_eq!(points.len(), 1500);
        assert_eq!(points.iter().map(|p| p.stream_window).max(), Some(999));
        // 2 samples per bucket, 2000 bytes per 2 ms = 8 Mbit/s.
        assert!((points[10].goodput_bps - 8e6).abs() < 1.0);
        assert_eq!(points[0].t, 0.002);
        assert!(bucket(&[]).is_empty());
    }

    #[test]
    fn writes_svgs() {
        let dir = std::env::temp_dir().join(format!("fc-lab-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let samples: Vec<Sample> = (1..=50)
            .map(|i| sample(i * 10, i * 5000, 1 << 62))
            .collect();
        let run = dir.join("run.svg");
        run_plot(&run, "test", &samples, 10_000_000, 6250).unwrap();
        let svg = std::fs::read_to_string(&run).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("unlimited: off scale"));

        let bars = dir.join("bars.svg");
        let series = vec![
            BarSeries {
                label: "a".into(),
                colour: (1, 2, 3),
                values: vec![Some(0.5), None],
            },
            BarSeries {
                label: "b".into(),
                colour: (4, 5, 6),
                values: vec![Some(5000.0), Some(f64::INFINITY)],
            },
            BarSeries {
                label: "c".into(),
                colour: (7, 8, 9),
                values: vec![Some(0.0004), Some(0.0)],
            },
        ];
        bar_chart(
            &bars,
            "t",
            "x",
            &["p1".into(), "p2".into()],
            &series,
            Scale::Log {
                min: 0.01,
                max: 1000.0,
            },
            &|v| format!("{v}"),
        )
        .unwrap();
        let svg = std::fs::read_to_string(&bars).unwrap();
        assert!(svg.contains("p1") && svg.contains("n/a"));
        // Unlimited is ∞, not a clipped number; colours are the series'.
        assert!(svg.contains("∞") && !svg.contains(">1000"), "{svg}");
        assert!(
            svg.contains("#010203") || svg.contains("rgb(1,2,3)"),
            "colour a"
        );
        // A value under the floor still has a bar and its label.
        assert!(svg.contains("0.0004"), "stub label");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
