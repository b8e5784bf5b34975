//! Render: Results + Analysis → report.html and report.md (view-model of formatted strings, SVG charts, minijinja templates).

pub mod charts;
