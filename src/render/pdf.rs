//! report.html → a PDF, for handing a report in (`--pdf [--paper
//! a4|letter]`, docs/printing.md). Owns finding a browser to print with
//! ($GPUPROF_CHROMIUM, else Chromium or Chrome on the PATH), choosing the
//! paper, running headless Chromium with a throwaway profile, and writing
//! the PDF atomically. What goes on which page is report.css's `@media
//! print`, not this module's: Chromium takes the page size from the page's
//! CSS, so the paper is chosen by an `@page { size }` rule added to a
//! temporary copy of the page.

use std::ffi::OsString;
use std::fmt;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use crate::process::{self, Invocation, ToolErrorKind};

/// How long Chromium may run before it is taken to hang. Printing the
/// largest bundled report takes about two seconds.
const PRINT_TIMEOUT: Duration = Duration::from_secs(180);

/// Lines of Chromium's output that a failure quotes.
const TAIL_LINES: usize = 12;

/// What to do when no browser is found.
const INSTALL_HINT: &str = "install Chromium: `apt install chromium` (Debian/Ubuntu), \
    `dnf install chromium` (Fedora), or set GPUPROF_CHROMIUM to a Chrome/Chromium binary";

/// The browsers looked for on the PATH, in order, after /usr/bin/chromium.
const ON_PATH: [&str; 4] = [
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// The paper a report is printed on. Only the size differs: report.css
/// sets the margins and lays the pages out for both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Paper {
    /// ISO A4, 210 × 297 mm.
    #[default]
    A4,
    /// US Letter, 8.5 × 11 in.
    Letter,
}

impl Paper {
    /// Every paper, in the order the help lists them.
    pub const ALL: [Paper; 2] = [Paper::A4, Paper::Letter];

    /// The name on the command line: `a4` or `letter`.
    pub fn name(self) -> &'static str {
        match self {
            Paper::A4 => "a4",
            Paper::Letter => "letter",
        }
    }

    /// The size as CSS's `@page { size }` names it.
    fn css_size(self) -> &'static str {
        match self {
            Paper::A4 => "A4",
            Paper::Letter => "letter",
        }
    }
}

impl fmt::Display for Paper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `--paper` value that names no paper.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown paper `{0}`: use `a4` or `letter`")]
pub struct UnknownPaper(pub String);

impl FromStr for Paper {
    type Err = UnknownPaper;

    /// `a4` or `letter`, in any case.
    fn from_str(text: &str) -> Result<Paper, UnknownPaper> {
        Paper::ALL
            .into_iter()
            .find(|paper| paper.name().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| UnknownPaper(text.to_string()))
    }
}

/// Why no PDF was written. The destination is then as it was: the PDF is
/// written whole or not at all.
#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    /// No browser to print with; `searched` says where gpuprof looked.
    #[error("cannot print {}: no Chromium found ({searched}); {INSTALL_HINT}", pdf.display())]
    ChromiumMissing { pdf: PathBuf, searched: String },
    /// The page to print could not be read.
    #[error("cannot print {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The PDF, or a temporary file beside it, could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Chromium ran but printed nothing usable: why, and the last lines of
    /// what it wrote on stderr (stdout when stderr is empty).
    #[error("Chromium could not print {} to {}: {reason}{}", html.display(), pdf.display(), quoted(tail))]
    Failed {
        html: PathBuf,
        pdf: PathBuf,
        reason: String,
        tail: String,
    },
    /// gpuprof was asked to stop (Ctrl-C, SIGTERM, SIGHUP) while printing.
    #[error("interrupted while printing {}: no PDF was written", pdf.display())]
    Interrupted { pdf: PathBuf },
}

/// `tail` as the indented end of an error message, or nothing.
fn quoted(tail: &str) -> String {
    match tail.trim() {
        "" => String::new(),
        tail => format!(
            "\nChromium's last lines:\n{}",
            tail.lines()
                .map(|line| format!("  {line}"))
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

impl From<PdfError> for crate::error::Error {
    /// A missing or failing browser is the machine's problem (exit code 4),
    /// an unwritable PDF an output failure (1), an unreadable page bad
    /// input (2). An interrupt comes after report.html, report.md and
    /// results.json are written, so those are saved.
    fn from(error: PdfError) -> crate::error::Error {
        use crate::error::Error;
        match error {
            PdfError::ChromiumMissing { .. } | PdfError::Failed { .. } => {
                Error::Tool(error.to_string())
            }
            PdfError::Read { .. } => Error::Input(error.to_string()),
            PdfError::Write { path, source } => Error::output(&path, source),
            PdfError::Interrupted { .. } => Error::Interrupted { saved: true },
        }
    }
}

/// Prints `html` (a report.html) to `pdf` on `paper` with headless
/// Chromium. The PDF is written to a temporary file beside `pdf` and
/// renamed over it, so `pdf` is never half-written.
pub fn write_pdf(html: &Path, pdf: &Path, paper: Paper) -> Result<(), PdfError> {
    let browser = chromium().map_err(|searched| PdfError::ChromiumMissing {
        pdf: pdf.to_path_buf(),
        searched,
    })?;
    print_with(&Invocation::new(browser), html, pdf, paper)
}

/// The browser `write_pdf` prints with: $GPUPROF_CHROMIUM when set, else
/// /usr/bin/chromium, else chromium, chromium-browser, google-chrome or
/// google-chrome-stable on the PATH. The error says where it looked.
pub fn chromium() -> Result<PathBuf, String> {
    locate(
        std::env::var_os("GPUPROF_CHROMIUM"),
        std::env::var_os("PATH"),
    )
}

fn locate(explicit: Option<OsString>, path: Option<OsString>) -> Result<PathBuf, String> {
    if let Some(explicit) = explicit.filter(|e| !e.is_empty()) {
        let explicit = PathBuf::from(explicit);
        return match is_executable(&explicit) {
            true => Ok(explicit),
            false => Err(format!(
                "GPUPROF_CHROMIUM is {}, which is not an executable file",
                explicit.display()
            )),
        };
    }
    let on_path = path
        .iter()
        .flat_map(std::env::split_paths)
        .flat_map(|folder| ON_PATH.map(|name| folder.join(name)));
    std::iter::once(PathBuf::from("/usr/bin/chromium"))
        .chain(on_path)
        .find(|candidate| is_executable(candidate))
        .ok_or_else(|| {
            format!(
                "GPUPROF_CHROMIUM is not set, and neither /usr/bin/chromium nor {} is on the PATH",
                ON_PATH.join(", ")
            )
        })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `write_pdf` with the browser given: `browser` is the command line that
/// starts it, to which the printing flags are added.
fn print_with(browser: &Invocation, html: &Path, pdf: &Path, paper: Paper) -> Result<(), PdfError> {
    let page = std::fs::read_to_string(html).map_err(|source| PdfError::Read {
        path: html.to_path_buf(),
        source,
    })?;
    let folder = pdf
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let cannot_write = |source| PdfError::Write {
        path: pdf.to_path_buf(),
        source,
    };
    // The copy with the paper's size lies beside the PDF (a folder that must
    // be writable anyway, and one that a sandboxed browser such as Ubuntu's
    // snap can read, unlike /tmp); the report is self-contained, so it needs
    // nothing beside the original.
    let copy = tempfile::Builder::new()
        .prefix(".gpuprof-print-")
        .suffix(".html")
        .tempfile_in(folder)
        .map_err(cannot_write)?;
    std::fs::write(copy.path(), with_page_size(&page, paper)).map_err(cannot_write)?;
    let output = tempfile::Builder::new()
        .prefix(".gpuprof-print-")
        .suffix(".pdf")
        .tempfile_in(folder)
        .map_err(cannot_write)?;
    let profile = tempfile::Builder::new()
        .prefix("gpuprof-chromium-")
        .tempdir()
        .map_err(cannot_write)?;
    let url = file_url(&std::path::absolute(copy.path()).map_err(cannot_write)?);
    let invocation = browser
        .clone()
        .args([
            "--headless",
            // The report runs no script (its content security policy allows
            // none), and the sandbox fails as root and in most containers.
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-pdf-header-footer",
            // The same, for Chromium before 111.
            "--print-to-pdf-no-header",
        ])
        .arg(flag("--user-data-dir=", profile.path()))
        .arg(flag("--print-to-pdf=", output.path()))
        .arg(url);
    let failed = |reason: String, tail: String| PdfError::Failed {
        html: html.to_path_buf(),
        pdf: pdf.to_path_buf(),
        reason,
        tail,
    };
    let printed = match process::run_streaming(&invocation, Some(PRINT_TIMEOUT), |_| {}) {
        Ok(printed) => printed,
        Err(error) => {
            let tail = last_lines(&error.stderr, &error.stdout);
            return Err(match error.kind {
                ToolErrorKind::Interrupted => PdfError::Interrupted {
                    pdf: pdf.to_path_buf(),
                },
                ToolErrorKind::NotFound => PdfError::ChromiumMissing {
                    pdf: pdf.to_path_buf(),
                    searched: format!("`{}` could not be run", browser.program.display()),
                },
                ToolErrorKind::Spawn(e) => failed(format!("it could not be started: {e}"), tail),
                ToolErrorKind::Failed { status } => failed(exited(status), tail),
                ToolErrorKind::TimedOut { idle_seconds, .. } => failed(
                    format!("it had not finished after {idle_seconds} s and was stopped"),
                    tail,
                ),
            });
        }
    };
    if !is_pdf(output.path()) {
        return Err(failed(
            "it exited without writing a PDF".into(),
            last_lines(&printed.stderr, &printed.stdout),
        ));
    }
    use std::os::unix::fs::PermissionsExt;
    // Temporary files are private (0600); the PDF is an ordinary file, like
    // the reports beside it. Chromium may have replaced the file, so both
    // go by its path.
    std::fs::set_permissions(output.path(), std::fs::Permissions::from_mode(0o644))
        .map_err(cannot_write)?;
    std::fs::File::open(output.path())
        .and_then(|file| file.sync_all())
        .map_err(cannot_write)?;
    output.persist(pdf).map_err(|e| cannot_write(e.error))?;
    Ok(())
}

/// How a failed browser ended, as a reason.
fn exited(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("it exited with code {code}"),
        (None, Some(signal)) => format!("it was killed by signal {signal}"),
        (None, None) => format!("it ended with {status}"),
    }
}

/// `page` with an `@page { size }` rule for `paper` at the end of its head,
/// after report.css's own `@page` (which sets only margins).
fn with_page_size(page: &str, paper: Paper) -> String {
    let rule = format!("<style>@page {{ size: {}; }}</style>\n", paper.css_size());
    match page.to_ascii_lowercase().find("</head>") {
        Some(at) => format!("{}{rule}{}", &page[..at], &page[at..]),
        None => format!("{rule}{page}"),
    }
}

/// `name=path`, as one argument.
fn flag(name: &str, path: &Path) -> OsString {
    let mut flag = OsString::from(name);
    flag.push(path);
    flag
}

/// The `file://` URL of an absolute path, with every byte that a URL path
/// may not hold as is (spaces, `#`, `?`, `%`, non-ASCII) percent-encoded.
fn file_url(path: &Path) -> String {
    let mut url = String::from("file://");
    for &byte in path.as_os_str().as_bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'.' | b'_' | b'~' => {
                url.push(char::from(byte))
            }
            _ => url.push_str(&format!("%{byte:02X}")),
        }
    }
    url
}

/// Whether `path` holds a whole PDF: its header, and the end-of-file
/// marker near its end.
fn is_pdf(path: &Path) -> bool {
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let mut bytes = Vec::new();
    if file.read_to_end(&mut bytes).is_err() || !bytes.starts_with(b"%PDF-") {
        return false;
    }
    let end = &bytes[bytes.len().saturating_sub(1024)..];
    end.windows(5).any(|w| w == b"%%EOF")
}

/// The last lines of Chromium's stderr (stdout when stderr is empty),
/// without its complaints about a missing D-Bus, which every headless run
/// outside a desktop session prints and which never stop it printing.
fn last_lines(stderr: &str, stdout: &str) -> String {
    let text = if stderr.trim().is_empty() {
        stdout
    } else {
        stderr
    };
    let kept: Vec<&str> = text
        .lines()
        .filter(|line| !line.contains("dbus") && !line.trim().is_empty())
        .collect();
    process::last_lines(&kept.join("\n"), TAIL_LINES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn papers_parse_in_any_case_and_print_as_they_parse() {
        for paper in Paper::ALL {
            assert_eq!(paper.name().parse::<Paper>(), Ok(paper));
            assert_eq!(paper.to_string().parse::<Paper>(), Ok(paper));
        }
        assert_eq!("A4".parse::<Paper>(), Ok(Paper::A4));
        assert_eq!(" Letter ".parse::<Paper>(), Ok(Paper::Letter));
        assert_eq!(
            "legal".parse::<Paper>().unwrap_err().to_string(),
            "unknown paper `legal`: use `a4` or `letter`"
        );
        assert_eq!(Paper::default(), Paper::A4);
    }

    #[test]
    fn the_page_size_goes_at_the_end_of_the_head() {
        let page = "<html><head><style>x</style></HEAD><body></body></html>";
        assert_eq!(
            with_page_size(page, Paper::Letter),
            "<html><head><style>x</style><style>@page { size: letter; }</style>\n</HEAD><body></body></html>"
        );
        assert_eq!(
            with_page_size("<p>bare</p>", Paper::A4),
            "<style>@page { size: A4; }</style>\n<p>bare</p>"
        );
    }

    #[test]
    fn a_file_url_encodes_what_a_path_may_hold() {
        assert_eq!(
            file_url(Path::new("/tmp/my reports/#1/ядро.html")),
            "file:///tmp/my%20reports/%231/%D1%8F%D0%B4%D1%80%D0%BE.html"
        );
    }

    #[test]
    fn the_browser_is_the_one_named_else_the_first_on_the_path() {
        let folder = tempfile::tempdir().unwrap();
        let named = folder.path().join("my-chrome");
        std::fs::write(&named, "").unwrap();
        let error = locate(Some(named.clone().into()), None).unwrap_err();
        assert!(error.contains("not an executable file"), "{error}");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&named, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(locate(Some(named.clone().into()), None).unwrap(), named);

        let bin = folder.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::fs::copy(&named, bin.join("google-chrome")).unwrap();
        std::fs::set_permissions(
            bin.join("google-chrome"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        let path = std::env::join_paths([folder.path().join("empty"), bin.clone()]).unwrap();
        let found = locate(None, Some(path)).unwrap();
        if Path::new("/usr/bin/chromium").is_file() {
            assert_eq!(found, Path::new("/usr/bin/chromium"));
        } else {
            assert_eq!(found, bin.join("google-chrome"));
        }
    }

    #[test]
    fn no_browser_names_the_packages_that_install_one() {
        let error = PdfError::ChromiumMissing {
            pdf: "out/report.pdf".into(),
            searched: "GPUPROF_CHROMIUM is not set".into(),
        };
        let text = error.to_string();
        assert!(
            text.starts_with("cannot print out/report.pdf: no Chromium found"),
            "{text}"
        );
        for hint in [
            "`apt install chromium` (Debian/Ubuntu)",
            "`dnf install chromium` (Fedora)",
            "set GPUPROF_CHROMIUM to a Chrome/Chromium binary",
        ] {
            assert!(text.contains(hint), "{text}");
        }
        let error = crate::error::Error::from(error);
        assert_eq!(error.exit_code(), crate::error::exit_code::ENVIRONMENT);
        assert_eq!(error.diagnostic().matches("error: ").count(), 1);
    }

    /// A stand-in browser: `sh -c script`, given Chromium's arguments
    /// (`$1` onwards), so that no script file is executed while another
    /// test may be writing one.
    fn stand_in(script: &str) -> Invocation {
        Invocation::new("/bin/sh").args(["-c", script, "chromium"])
    }

    /// Writes the page and an old report.pdf into a fresh folder.
    fn folder_with_report() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let folder = tempfile::tempdir().unwrap();
        let html = folder.path().join("report.html");
        std::fs::write(&html, "<html><head></head><body>report</body></html>").unwrap();
        let pdf = folder.path().join("report.pdf");
        std::fs::write(&pdf, "old").unwrap();
        (folder, html, pdf)
    }

    fn names(folder: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// The value of `--name=` among the stand-in's arguments, in shell.
    const PDF_PATH: &str = r#"for a in "$@"; do case "$a" in --print-to-pdf=*) out="${a#--print-to-pdf=}";; esac; done"#;

    #[test]
    fn a_printed_pdf_replaces_the_old_one_and_leaves_nothing_else() {
        let (folder, html, pdf) = folder_with_report();
        let script = format!(
            r#"{PDF_PATH}; for a in "$@"; do case "$a" in file://*) page="${{a#file://}}";; esac; done
               grep -q '@page {{ size: letter; }}' "$page" || exit 9
               printf '%%PDF-1.4\nbody\n%%%%EOF\n' > "$out""#
        );
        print_with(&stand_in(&script), &html, &pdf, Paper::Letter).unwrap();
        assert_eq!(
            std::fs::read_to_string(&pdf).unwrap(),
            "%PDF-1.4\nbody\n%%EOF\n"
        );
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&pdf).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o644);
        assert_eq!(names(folder.path()), ["report.html", "report.pdf"]);
    }

    #[test]
    fn a_failing_browser_leaves_the_old_pdf_and_quotes_its_last_lines() {
        let (folder, html, pdf) = folder_with_report();
        let script = format!(
            r#"{PDF_PATH}; printf '%%PDF-half' > "$out"
               echo "[1:2:ERROR:dbus/bus.cc:405] Failed to connect to the bus" >&2
               echo "[1:1:FATAL:printing] cannot print: out of paper" >&2
               exit 3"#
        );
        let error = print_with(&stand_in(&script), &html, &pdf, Paper::A4).unwrap_err();
        let text = error.to_string();
        assert!(matches!(error, PdfError::Failed { .. }), "{text}");
        assert!(
            text.contains(": it exited with code 3\nChromium's last lines:"),
            "{text}"
        );
        assert!(
            text.contains("  [1:1:FATAL:printing] cannot print: out of paper"),
            "{text}"
        );
        assert!(!text.contains("dbus"), "{text}");
        assert_eq!(std::fs::read_to_string(&pdf).unwrap(), "old");
        assert_eq!(names(folder.path()), ["report.html", "report.pdf"]);

        let script = "echo 'ERROR: page not found' >&2";
        let error = print_with(&stand_in(script), &html, &pdf, Paper::A4).unwrap_err();
        assert!(
            error.to_string().ends_with(
                "it exited without writing a PDF\nChromium's last lines:\n  ERROR: page not found"
            ),
            "{error}"
        );
        assert_eq!(std::fs::read_to_string(&pdf).unwrap(), "old");
        assert_eq!(names(folder.path()), ["report.html", "report.pdf"]);
    }

    #[test]
    fn a_missing_page_or_folder_is_named() {
        let folder = tempfile::tempdir().unwrap();
        let error = print_with(
            &stand_in("exit 0"),
            &folder.path().join("absent.html"),
            &folder.path().join("report.pdf"),
            Paper::A4,
        )
        .unwrap_err();
        assert!(matches!(error, PdfError::Read { .. }), "{error}");
        assert!(error.to_string().contains("absent.html"), "{error}");

        let (_folder, html, _) = folder_with_report();
        let error = print_with(
            &stand_in("exit 0"),
            &html,
            &folder.path().join("no/such/folder/report.pdf"),
            Paper::A4,
        )
        .unwrap_err();
        assert!(matches!(error, PdfError::Write { .. }), "{error}");
        let error = crate::error::Error::from(error);
        assert_eq!(error.exit_code(), crate::error::exit_code::OUTPUT_FAILED);
    }
}
