//! The harness's two outputs kept apart: its report (the events, one JSON
//! object per line, on the descriptor the pipeline gave it, never stdout)
//! and what kernels print. The CUDA driver writes a kernel's `printf` to
//! fd 1, which is redirected into a pipe that a thread drains as it fills
//! (so a flood never blocks the kernel); before each event the harness
//! takes what was printed since the previous one (C stdio flushed, the
//! pipe read dry under the lock the thread reads under), so the text
//! belongs to the item in flight, whatever its bytes or its lack of a
//! final newline, and is reported as that item's `Printed` event, never
//! parsed. While a kernel's output keeps coming, the thread reports
//! `Printing` once a second, so that a long flood is not taken for a hang.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use super::protocol::{Event, Item};

/// Bytes of printed text kept per item; the lines beyond are counted.
pub const KEPT_BYTES: usize = 16 << 10;

/// How often a kernel that keeps printing is reported alive.
const PRINTING_EVERY: Duration = Duration::from_secs(1);

/// What was printed since the last take.
#[derive(Debug, Default, PartialEq)]
pub struct Printed {
    /// The first [`KEPT_BYTES`] bytes.
    pub kept: Vec<u8>,
    /// Lines (newlines) in the bytes beyond them, not kept.
    pub more_lines: u64,
    /// Bytes beyond them, not kept.
    pub more_bytes: u64,
}

impl Printed {
    fn is_empty(&self) -> bool {
        self.kept.is_empty() && self.more_bytes == 0
    }

    fn keep(&mut self, bytes: &[u8]) {
        let room = KEPT_BYTES.saturating_sub(self.kept.len()).min(bytes.len());
        self.kept.extend_from_slice(&bytes[..room]);
        let beyond = &bytes[room..];
        self.more_bytes += beyond.len() as u64;
        self.more_lines += beyond.iter().filter(|&&b| b == b'\n').count() as u64;
    }
}

/// The report descriptor, shared by the harness and the draining thread.
type Report = Arc<Mutex<File>>;

/// Where the harness sends its events, and what kernels printed.
pub struct Reporter {
    report: Report,
    capture: Capture,
    in_flight: Option<Item>,
}

impl Reporter {
    /// The report descriptor the pipeline named in `variable`, with fd 1
    /// captured; `None` when the variable is not set (the harness run by
    /// hand reports on stdout, its kernels' text mixed in).
    pub fn from_env(variable: &str) -> Result<Option<Reporter>, String> {
        let Some(value) = std::env::var_os(variable) else {
            return Ok(None);
        };
        let fd: RawFd = value
            .to_str()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{variable} must name a file descriptor, not {value:?}"))?;
        // SAFETY: F_GETFD only asks whether `fd` is open.
        if fd < 3 || unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
            return Err(format!(
                "the report descriptor {fd} named by {variable} is not open \
                 (a program between gpuprof and the harness closed it)"
            ));
        }
        // SAFETY: the descriptor is open and this process's alone to use.
        let report = Arc::new(Mutex::new(File::from(unsafe { OwnedFd::from_raw_fd(fd) })));
        let capture = Capture::start(report.clone())
            .map_err(|error| format!("cannot capture what kernels print: {error}"))?;
        Ok(Some(Reporter {
            report,
            capture,
            in_flight: None,
        }))
    }

    /// Reports `event`, preceded by what the item in flight printed since
    /// the last event. A pipeline that stopped reading needs no report.
    pub fn emit(&mut self, event: &Event) {
        let mut lines = String::new();
        let printed = self.capture.take();
        if let (Some(item), false) = (&self.in_flight, printed.is_empty()) {
            let printed = Event::Printed {
                item: item.clone(),
                text: String::from_utf8_lossy(&printed.kept).into_owned(),
                more_lines: printed.more_lines,
            };
            lines.push_str(&printed.to_line());
            lines.push('\n');
        }
        match event {
            Event::Started { item } | Event::Sampling { item } => {
                self.in_flight = Some(item.clone())
            }
            Event::Measured { .. } | Event::Failed { .. } => self.in_flight = None,
            _ => {}
        }
        lines.push_str(&event.to_line());
        lines.push('\n');
        let mut report = lock(&self.report);
        let _ = report.write_all(lines.as_bytes());
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// fd 1 redirected into a pipe, and what was read from it.
struct Capture {
    /// The pipe's reading end (non-blocking), read only under `printed`'s
    /// lock.
    reader: File,
    printed: Arc<Mutex<Printed>>,
}

impl Capture {
    /// Redirects fd 1 into a pipe drained by a thread that reports
    /// `Printing` on `report` while output keeps coming.
    fn start(report: Report) -> io::Result<Capture> {
        let (reader, writer) = crate::process::pipe(libc::O_CLOEXEC | libc::O_NONBLOCK)?;
        // The kernel's side blocks when the pipe is full (the thread drains
        // it); only the reading end is non-blocking.
        // SAFETY: fcntl and dup2 on descriptors this process owns; dup2
        // replaces fd 1 (stdout) by the pipe's writing end.
        unsafe {
            if libc::fcntl(writer.as_raw_fd(), libc::F_SETFL, 0) < 0
                || libc::dup2(writer.as_raw_fd(), libc::STDOUT_FILENO) < 0
            {
                return Err(io::Error::last_os_error());
            }
        }
        let printed = Arc::new(Mutex::new(Printed::default()));
        let thread_reader = reader.try_clone()?;
        let thread_printed = printed.clone();
        thread::spawn(move || drain(&thread_reader, &thread_printed, &report));
        Ok(Capture { reader, printed })
    }

    /// What was printed since the last take: C stdio flushed (the CUDA
    /// driver writes through it), then the pipe read dry.
    fn take(&self) -> Printed {
        // SAFETY: fflush(NULL) flushes every C output stream.
        unsafe {
            libc::fflush(std::ptr::null_mut());
        }
        let mut printed = lock(&self.printed);
        let _ = read_available(&self.reader, &mut printed);
        std::mem::take(&mut *printed)
    }
}

/// Reads everything the pipe holds now into `printed`: the bytes read, and
/// whether the pipe has closed.
fn read_available(mut reader: &File, printed: &mut Printed) -> (usize, bool) {
    let mut chunk = [0u8; 8192];
    let mut total = 0;
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => return (total, true),
            Ok(read) => {
                printed.keep(&chunk[..read]);
                total += read;
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return (total, false),
        }
    }
}

/// Drains the pipe as it fills, until it closes; reports `Printing` at
/// most once every [`PRINTING_EVERY`] while output arrives.
fn drain(reader: &File, printed: &Mutex<Printed>, report: &Mutex<File>) {
    let mut last_report = Instant::now();
    let mut waiting = libc::pollfd {
        fd: reader.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    loop {
        // SAFETY: poll on one descriptor this process owns.
        let ready = unsafe { libc::poll(&mut waiting, 1, 1000) };
        if ready < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return;
        }
        let (read, closed) = read_available(reader, &mut lock(printed));
        if read > 0 && last_report.elapsed() >= PRINTING_EVERY {
            last_report = Instant::now();
            let line = Event::Printing.to_line() + "\n";
            let _ = lock(report).write_all(line.as_bytes());
        }
        if closed {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A drained pipe as the harness has it, without touching the test's
    /// own fd 1: the writing end, the capture and the report's reading end.
    fn captured() -> (File, Capture, File) {
        let mut ends = [0; 2];
        // SAFETY: `ends` has room for the two descriptors pipe2 writes.
        assert_eq!(
            unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_NONBLOCK) },
            0
        );
        // SAFETY: both ends were just opened and are owned by nothing else.
        let (reader, writer) = unsafe { (File::from_raw_fd(ends[0]), File::from_raw_fd(ends[1])) };
        // SAFETY: the writer blocks like fd 1 does.
        unsafe { libc::fcntl(writer.as_raw_fd(), libc::F_SETFL, 0) };
        let report = tempfile::tempfile().unwrap();
        let report_copy = report.try_clone().unwrap();
        let printed = Arc::new(Mutex::new(Printed::default()));
        let (thread_reader, thread_printed) = (reader.try_clone().unwrap(), printed.clone());
        let report = Arc::new(Mutex::new(report));
        thread::spawn(move || drain(&thread_reader, &thread_printed, &report));
        (writer, Capture { reader, printed }, report_copy)
    }

    #[test]
    fn what_was_printed_is_taken_whole_whatever_its_bytes() {
        let (mut writer, capture, _) = captured();
        writer
            .write_all(b"block 0 says hi\n\xff\xfe\nno newline")
            .unwrap();
        let first = capture.take();
        assert_eq!(first.kept, b"block 0 says hi\n\xff\xfe\nno newline");
        assert_eq!((first.more_lines, first.more_bytes), (0, 0));
        assert!(capture.take().is_empty(), "taken once");
        // A flood far beyond the pipe's capacity never blocks the writer
        // (the thread drains it) and is kept up to KEPT_BYTES, in order.
        for line in 0..20_000 {
            writeln!(writer, "line {line:05} of a flood").unwrap();
        }
        let flood = capture.take();
        assert_eq!(flood.kept.len(), KEPT_BYTES);
        assert!(flood.kept.starts_with(b"line 00000 of a flood\nline 00001"));
        let line_bytes = "line 00000 of a flood\n".len() as u64;
        assert_eq!(flood.more_bytes, 20_000 * line_bytes - KEPT_BYTES as u64);
        assert!(flood.more_lines >= 20_000 - KEPT_BYTES as u64 / line_bytes - 1);
    }

    #[test]
    fn a_long_flood_is_reported_as_printing() {
        let (mut writer, capture, mut report) = captured();
        let started = Instant::now();
        while started.elapsed() < PRINTING_EVERY * 2 + Duration::from_millis(300) {
            writer.write_all(&[b'x'; 4096]).unwrap();
            thread::sleep(Duration::from_millis(20));
        }
        drop(capture.take());
        use std::io::Seek;
        report.rewind().unwrap();
        let mut lines = String::new();
        report.read_to_string(&mut lines).unwrap();
        let printing = lines
            .lines()
            .filter(|line| Event::from_line(line).ok() == Some(Event::Printing))
            .count();
        assert!((1..=3).contains(&printing), "{lines}");
    }
}
