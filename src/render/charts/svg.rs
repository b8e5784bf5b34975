//! The SVG document around a chart: drawing into a string through plotters'
//! SVG backend, adding the accessible `<title>`, `role` and font stack to
//! its `<svg>` tag, the small message SVG that stands in for a chart with
//! nothing to draw or a drawing error, and XML escaping of caller text.

use std::fmt::Write as _;

use plotters::prelude::*;

use super::style::{FONT_STACK, WIDTH};
use super::{Area, Drawn};

/// Draws into a fresh SVG document; a drawing error becomes a message SVG.
pub(super) fn render(title: &str, size: (u32, u32), draw: impl FnOnce(&Area) -> Drawn) -> String {
    let mut svg = String::new();
    let outcome = {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        draw(&root).and_then(|()| root.present().map_err(Into::into))
    };
    match outcome {
        Ok(()) => with_title(svg, title),
        Err(err) => message_svg(title, &format!("chart could not be drawn: {err}")),
    }
}

/// Adds the accessible `<title>`, `role` and the font stack to plotters' `<svg>` tag.
fn with_title(svg: String, title: &str) -> String {
    let Some(end) = svg.find('>') else {
        return svg;
    };
    let mut out = String::with_capacity(svg.len() + title.len() + 160);
    out.push_str(&svg[..end]);
    let _ = write!(
        out,
        " role=\"img\" font-family=\"{FONT_STACK}\">\n<title>{}</title>",
        escape(title)
    );
    out.push_str(&svg[end + 1..]);
    out
}

/// A small SVG with the chart title and one line of text instead of a chart.
pub(super) fn message_svg(title: &str, message: &str) -> String {
    let (title, message) = (escape(title), escape(message));
    format!(
        "<svg width=\"{WIDTH}\" height=\"96\" viewBox=\"0 0 {WIDTH} 96\" \
         xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" font-family=\"{FONT_STACK}\">\n\
         <title>{title}</title>\n\
         <rect x=\"0.5\" y=\"0.5\" width=\"{}\" height=\"95\" fill=\"#FAFAFA\" stroke=\"#DDDDDD\"/>\n\
         <text x=\"16\" y=\"32\" font-size=\"15\" font-weight=\"bold\" fill=\"#222222\">{title}</text>\n\
         <text x=\"16\" y=\"64\" font-size=\"13\" fill=\"#666666\">{message}</text>\n\
         </svg>\n",
        WIDTH - 1
    )
}

pub(super) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            other => out.push(other),
        }
    }
    out
}
