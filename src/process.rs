//! Spawning external tools (ncu, nvidia-smi, gpuprof's own harness):
//! capturing their output, streaming stdout line by line (or, for the
//! harness, the lines of a report pipe of its own, apart from stdout), an
//! idle timeout, and typed errors that carry the argv and the tool's stderr. Every tool
//! runs in its own process group (stopped as a whole on a timeout or a
//! signal) and dies with gpuprof even when gpuprof is killed outright.
//! Knows no tool's flags.

use std::ffi::OsString;
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// A command line to run: the program and its arguments.
#[derive(Debug, Clone)]
pub struct Invocation {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub env: Vec<(OsString, OsString)>,
    /// The working folder (the caller's when `None`).
    pub folder: Option<PathBuf>,
}

impl Invocation {
    pub fn new(program: impl Into<PathBuf>) -> Invocation {
        Invocation {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            folder: None,
        }
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Invocation {
        self.args.push(arg.into());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Invocation {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn in_folder(mut self, folder: impl Into<PathBuf>) -> Invocation {
        self.folder = Some(folder.into());
        self
    }

    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Invocation {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The command line as the user would type it (for reports and errors).
    pub fn display(&self) -> String {
        std::iter::once(self.program.as_os_str())
            .chain(self.args.iter().map(OsString::as_os_str))
            .map(|part| shell_quote(&part.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The command to spawn; with `report`, the writing end of a report
    /// pipe becomes the child's descriptor [`REPORT_FD`], named to it by
    /// [`REPORT_FD_VARIABLE`].
    fn command(&self, report: Option<RawFd>) -> Command {
        let mut command = Command::new(&self.program);
        // Its own process group, so that a timeout stops the tool and
        // everything it started (ncu's target process, a shell's children).
        command.process_group(0);
        // SAFETY: prctl(2), dup2(2) and fcntl(2) are async-signal-safe and
        // touch no memory of the parent; they run in the child between fork
        // and exec, on descriptors it inherited.
        unsafe {
            command.pre_exec(move || {
                die_with_parent();
                if let Some(report) = report {
                    give_report_descriptor(report)?;
                }
                Ok(())
            });
        }
        if report.is_some() {
            command.env(REPORT_FD_VARIABLE, REPORT_FD.to_string());
        }
        command.args(&self.args);
        if let Some(folder) = &self.folder {
            command.current_dir(folder);
        }
        for (key, value) in &self.env {
            command.env(key, value);
        }
        command
    }
}

/// The descriptor a reporting child writes its report lines to.
pub const REPORT_FD: RawFd = 3;

/// The variable that tells a reporting child its report descriptor.
pub const REPORT_FD_VARIABLE: &str = "GPUPROF_REPORT_FD";

/// In the child: `report` (close-on-exec, as every descriptor gpuprof
/// opens) becomes [`REPORT_FD`], kept open across exec.
fn give_report_descriptor(report: RawFd) -> std::io::Result<()> {
    // SAFETY: dup2 and fcntl on descriptors of this (forked) process.
    let done = unsafe {
        if report == REPORT_FD {
            // dup2 onto itself would keep close-on-exec: clear it instead.
            libc::fcntl(REPORT_FD, libc::F_SETFD, 0)
        } else {
            libc::dup2(report, REPORT_FD)
        }
    };
    match done < 0 {
        true => Err(std::io::Error::last_os_error()),
        false => Ok(()),
    }
}

/// A word as a shell would need it: plain, single-quoted, or, when it holds
/// control characters (which a terminal would obey), `$'…'` with them
/// escaped, so that showing a command line never moves the cursor or
/// retitles a window.
pub(crate) fn shell_quote(part: &str) -> String {
    let plain = !part.is_empty()
        && part
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        part.to_string()
    } else if part.chars().any(char::is_control) {
        format!("$'{}'", part.escape_default())
    } else {
        format!("'{}'", part.replace('\'', r"'\''"))
    }
}

/// What a finished tool printed.
#[derive(Debug, Clone)]
pub struct ToolOutput {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

#[derive(Debug)]
pub enum ToolErrorKind {
    NotFound,
    Spawn(std::io::Error),
    /// gpuprof was asked to stop (Ctrl-C, SIGTERM, SIGHUP): the tool was
    /// stopped, or not started.
    Interrupted,
    Failed {
        status: ExitStatus,
    },
    /// Nothing came on `channel` for `idle_seconds`.
    TimedOut {
        idle_seconds: u64,
        channel: Channel,
    },
}

/// Where a tool's lines are followed (and its silence timed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// Its stdout.
    Stdout,
    /// A pipe of its own at [`REPORT_FD`]; its stdout and stderr are kept
    /// apart (their last [`KEPT_OTHER_OUTPUT`] bytes), never parsed.
    Report,
}

/// Bytes kept of a reporting tool's stdout and stderr (the last ones).
pub const KEPT_OTHER_OUTPUT: usize = 64 << 10;

/// A tool that could not be run or did not succeed.
#[derive(Debug)]
pub struct ToolError {
    pub command_line: String,
    pub kind: ToolErrorKind,
    pub stdout: String,
    pub stderr: String,
}

impl ToolError {
    /// The last lines of stderr (or stdout when stderr is empty).
    pub fn output_tail(&self, lines: usize) -> String {
        let text = if self.stderr.trim().is_empty() {
            &self.stdout
        } else {
            &self.stderr
        };
        last_lines(text, lines)
    }
}

/// The last `count` lines of `text`.
pub fn last_lines(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(count)..].join("\n")
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ToolErrorKind::NotFound => {
                write!(f, "cannot run `{}`: program not found", self.command_line)?
            }
            ToolErrorKind::Spawn(error) => {
                write!(f, "cannot run `{}`: {error}", self.command_line)?
            }
            ToolErrorKind::Failed { status } => {
                write!(f, "`{}` failed ({status})", self.command_line)?
            }
            ToolErrorKind::TimedOut {
                idle_seconds,
                channel,
            } => write!(
                f,
                "`{}` {} nothing for {idle_seconds} s and was stopped",
                self.command_line,
                match channel {
                    Channel::Stdout => "printed",
                    Channel::Report => "reported",
                }
            )?,
            ToolErrorKind::Interrupted => write!(
                f,
                "`{}` was stopped: gpuprof was interrupted",
                self.command_line
            )?,
        }
        let tail = self.output_tail(20);
        if !tail.trim().is_empty() {
            write!(f, "\n{tail}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ToolError {}

/// Runs a tool to completion, capturing stdout and stderr; a non-zero exit
/// is an error.
pub fn run(invocation: &Invocation) -> Result<ToolOutput, ToolError> {
    run_streaming(invocation, None, |_| {})
}

/// Runs a tool, calling `on_line` for each stdout line as it arrives. With
/// `idle_timeout`, a tool that prints nothing on stdout for that long is
/// killed and reported as timed out.
pub fn run_streaming(
    invocation: &Invocation,
    idle_timeout: Option<Duration>,
    on_line: impl FnMut(&str),
) -> Result<ToolOutput, ToolError> {
    run_following(invocation, Channel::Stdout, idle_timeout, on_line)
}

/// Runs a tool that reports on a pipe of its own ([`REPORT_FD`]), calling
/// `on_report` for each line of it as it arrives, whatever else the tool
/// (a kernel's printf) writes on stdout or stderr. With `idle_timeout`, a
/// tool that reports nothing for that long is killed and reported as timed
/// out, for as long as it lives.
pub fn run_reporting(
    invocation: &Invocation,
    idle_timeout: Option<Duration>,
    on_report: impl FnMut(&str),
) -> Result<ToolOutput, ToolError> {
    run_following(invocation, Channel::Report, idle_timeout, on_report)
}

fn run_following(
    invocation: &Invocation,
    channel: Channel,
    idle_timeout: Option<Duration>,
    mut on_line: impl FnMut(&str),
) -> Result<ToolOutput, ToolError> {
    let command_line = invocation.display();
    let spawn_error = |kind| ToolError {
        command_line: command_line.clone(),
        kind,
        stdout: String::new(),
        stderr: String::new(),
    };
    if interrupted() {
        return Err(spawn_error(ToolErrorKind::Interrupted));
    }
    let report_pipe = match channel {
        Channel::Report => {
            Some(report_pipe().map_err(|error| spawn_error(ToolErrorKind::Spawn(error)))?)
        }
        Channel::Stdout => None,
    };
    let spawned = invocation
        .command(report_pipe.as_ref().map(|(_, writer)| writer.as_raw_fd()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    // The pipe ends when the child (and all it started) has closed its
    // copy: the parent's goes now.
    let report_reader = report_pipe.map(|(reader, _writer)| reader);
    let mut child = spawned.map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => spawn_error(ToolErrorKind::NotFound),
        _ => spawn_error(ToolErrorKind::Spawn(error)),
    })?;
    let group = libc::pid_t::try_from(child.id()).ok();
    if let Some(group) = group {
        running_groups().push(group);
        // Asked to stop between the check above and now: stop this one too.
        if interrupted() {
            stop_all();
        }
    }
    let stderr_reader = read_all_in_background(child.stderr.take(), report_reader.is_some());
    let (followed_reader, lines, stdout_reader) = match report_reader {
        Some(reader) => {
            let (followed, lines) = read_lines_in_background(Some(reader));
            let stdout = read_all_in_background(child.stdout.take(), true);
            (followed, lines, Some(stdout))
        }
        None => {
            let (followed, lines) = read_lines_in_background(child.stdout.take());
            (followed, lines, None)
        }
    };
    // Followed stdout is also the tool's output; a report channel's lines
    // are only followed.
    let mut followed_text = String::new();
    let keeps_text = stdout_reader.is_none();
    let timed_out = follow_lines(&mut child, &lines, idle_timeout, |line| {
        on_line(line);
        if keeps_text {
            followed_text.push_str(line);
            followed_text.push('\n');
        }
    });
    let waited = child.wait();
    if let Some(group) = group {
        running_groups().retain(|g| *g != group);
    }
    let status = waited.map_err(|e| spawn_error(ToolErrorKind::Spawn(e)))?;
    let _ = followed_reader.join();
    let stdout = match stdout_reader {
        Some(reader) => reader.join().unwrap_or_default(),
        None => followed_text,
    };
    let stderr = stderr_reader.join().unwrap_or_default();
    let kind = match timed_out {
        _ if !status.success() && interrupted() => Some(ToolErrorKind::Interrupted),
        Some(idle_seconds) => Some(ToolErrorKind::TimedOut {
            idle_seconds,
            channel,
        }),
        None if !status.success() => Some(ToolErrorKind::Failed { status }),
        None => None,
    };
    match kind {
        Some(kind) => Err(ToolError {
            command_line,
            kind,
            stdout,
            stderr,
        }),
        None => Ok(ToolOutput {
            status,
            stdout,
            stderr,
        }),
    }
}

/// A pipe for a child's reports: the end gpuprof reads and the end the
/// child gets, both close-on-exec (so no other child inherits them).
fn report_pipe() -> std::io::Result<(File, OwnedFd)> {
    pipe(libc::O_CLOEXEC)
}

/// A pipe opened with `pipe2`'s `flags`: its reading end and its writing
/// end.
pub(crate) fn pipe(flags: libc::c_int) -> std::io::Result<(File, OwnedFd)> {
    let mut ends = [0; 2];
    // SAFETY: `ends` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(ends.as_mut_ptr(), flags) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just opened and are owned by nothing
    // else.
    unsafe {
        Ok((
            File::from(OwnedFd::from_raw_fd(ends[0])),
            OwnedFd::from_raw_fd(ends[1]),
        ))
    }
}

/// Passes each followed line to `on_line` as it arrives, until its source
/// closes or, with `idle_timeout`, nothing comes for that long and the tool
/// is killed: the idle seconds when it timed out.
fn follow_lines(
    child: &mut Child,
    lines: &mpsc::Receiver<String>,
    idle_timeout: Option<Duration>,
    mut on_line: impl FnMut(&str),
) -> Option<u64> {
    let mut last_output = Instant::now();
    loop {
        match lines.recv_timeout(Duration::from_millis(100)) {
            Ok(line) => {
                on_line(&line);
                last_output = Instant::now();
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Some(limit) = idle_timeout
                    && last_output.elapsed() > limit
                {
                    kill_tree(child);
                    return Some(limit.as_secs());
                }
            }
        }
    }
}

/// Sends each line of `source` down the channel as it is read, until it
/// ends or the receiver is gone.
fn read_lines_in_background<R: Read + Send + 'static>(
    source: Option<R>,
) -> (thread::JoinHandle<()>, mpsc::Receiver<String>) {
    let (lines_tx, lines_rx) = mpsc::channel::<String>();
    let reader = thread::spawn(move || {
        let Some(source) = source else {
            return;
        };
        // Bytes, not text: a tool (a kernel's printf) may print anything,
        // and one byte that is not UTF-8 must not end the reading (nor the
        // idle timeout that depends on it).
        let mut reader = BufReader::new(source);
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            match reader.read_until(b'\n', &mut bytes) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&bytes);
                    let line = line.trim_end_matches(['\n', '\r']).to_string();
                    if lines_tx.send(line).is_err() {
                        break;
                    }
                }
            }
        }
    });
    (reader, lines_rx)
}

/// Reads `source` to its end: all of it, or with `bounded` only its last
/// [`KEPT_OTHER_OUTPUT`] bytes (a reporting tool's other output may be a
/// flood that must not fill the memory).
fn read_all_in_background<R: Read + Send + 'static>(
    source: Option<R>,
    bounded: bool,
) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let Some(mut source) = source else {
            return String::new();
        };
        if !bounded {
            let _ = source.read_to_end(&mut bytes);
            return String::from_utf8_lossy(&bytes).into_owned();
        }
        let mut chunk = vec![0; 8192];
        loop {
            match source.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(read) => bytes.extend_from_slice(&chunk[..read]),
            }
            if bytes.len() > 2 * KEPT_OTHER_OUTPUT {
                bytes.drain(..bytes.len() - KEPT_OTHER_OUTPUT);
            }
        }
        let kept = &bytes[bytes.len().saturating_sub(KEPT_OTHER_OUTPUT)..];
        String::from_utf8_lossy(kept).into_owned()
    })
}

/// Asks the kernel to kill this process when its parent dies, so that a
/// tool (or the harness under ncu) never outlives a gpuprof that was killed
/// outright (SIGKILL leaves no handler a chance to clean up).
pub fn die_with_parent() {
    // SAFETY: prctl(PR_SET_PDEATHSIG) only sets a flag of this process.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
}

/// Whether the process `pid` exists (it may belong to another user).
pub fn is_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 sends nothing; it only checks that the process exists.
    let sent = unsafe { libc::kill(pid, 0) };
    sent == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Set once gpuprof is asked to stop.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Asks gpuprof to stop: every running tool is killed and no new one
/// starts; the pipeline then saves what it has and ends.
pub fn interrupt() {
    INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
    stop_all();
}

/// Whether gpuprof was asked to stop.
pub fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

/// The process groups of the tools running now (each tool gets its own).
static RUNNING_GROUPS: std::sync::Mutex<Vec<libc::pid_t>> = std::sync::Mutex::new(Vec::new());

fn running_groups() -> std::sync::MutexGuard<'static, Vec<libc::pid_t>> {
    RUNNING_GROUPS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Kills every tool still running and everything it started: on Ctrl-C,
/// so that no harness or ncu keeps the GPU busy after gpuprof is gone
/// (their own process groups do not receive the terminal's signal).
pub fn stop_all() {
    for group in running_groups().drain(..) {
        // SAFETY: kill(2) on a process group this module created.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
}

fn kill_tree(child: &mut Child) {
    if let Ok(group) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group that
        // `command()` created for this child; it touches no memory.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
    let _ = child.kill();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_that_are_not_utf8_neither_stop_the_reading_nor_the_timeout() {
        let invocation = Invocation::new("sh")
            .arg("-c")
            .arg("printf 'one\\n\\377\\376 bad\\ntwo\\n'; exec sleep 30");
        let mut seen = Vec::new();
        let started = Instant::now();
        let outcome = run_streaming(&invocation, Some(Duration::from_millis(500)), |line| {
            seen.push(line.to_string())
        });
        assert_eq!(seen, ["one", "\u{fffd}\u{fffd} bad", "two"]);
        let error = outcome.unwrap_err();
        assert!(
            matches!(error.kind, ToolErrorKind::TimedOut { .. }),
            "{error}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the timeout fired"
        );
    }

    #[test]
    fn reports_come_on_their_own_pipe_whatever_stdout_carries() {
        // Report lines on the pipe; a flood of bytes that are not UTF-8,
        // text without a newline and a fake report on stdout and stderr.
        let script = r#"
            printf 'one\n' >&"$GPUPROF_REPORT_FD"
            head -c 300000 /dev/zero | tr '\0' '\377'
            printf '{"event":"fake"}' ; printf 'err\n' >&2
            printf 'two\n' >&3
        "#;
        let invocation = Invocation::new("sh").arg("-c").arg(script);
        let mut reports = Vec::new();
        let output =
            run_reporting(&invocation, None, |line| reports.push(line.to_string())).unwrap();
        assert_eq!(reports, ["one", "two"]);
        assert!(output.stdout.ends_with("\u{fffd}{\"event\":\"fake\"}"));
        assert!(
            output.stdout.chars().count() <= KEPT_OTHER_OUTPUT + 16,
            "only the last bytes of stdout are kept"
        );
        assert_eq!(output.stderr, "err\n");
    }

    #[test]
    fn a_reporting_tool_that_only_prints_is_stopped_as_silent() {
        // Printing on stdout is not reporting: the timeout still fires.
        let invocation = Invocation::new("sh")
            .arg("-c")
            .arg("echo started >&3; while :; do echo busy; sleep 0.01; done");
        let started = Instant::now();
        let error =
            run_reporting(&invocation, Some(Duration::from_millis(400)), |_| {}).unwrap_err();
        assert!(
            matches!(
                error.kind,
                ToolErrorKind::TimedOut {
                    channel: Channel::Report,
                    ..
                }
            ),
            "{error}"
        );
        assert!(
            error.to_string().contains("reported nothing for"),
            "{error}"
        );
        assert!(started.elapsed() < Duration::from_secs(20));
    }

    #[test]
    fn command_lines_are_shown_quoted_and_without_live_control_characters() {
        let invocation = Invocation::new("./prog")
            .arg("plain-arg")
            .arg("two words")
            .arg("it's")
            .arg("\u{1b}]0;owned\u{7}");
        assert_eq!(
            invocation.display(),
            r"./prog plain-arg 'two words' 'it'\''s' $'\u{1b}]0;owned\u{7}'"
        );
    }

    #[test]
    fn captures_output_and_streams_lines() {
        let invocation = Invocation::new("sh")
            .arg("-c")
            .arg("echo one; echo two; echo err >&2");
        let mut seen = Vec::new();
        let output = run_streaming(&invocation, None, |line| seen.push(line.to_string())).unwrap();
        assert_eq!(seen, ["one", "two"]);
        assert_eq!(output.stdout, "one\ntwo\n");
        assert_eq!(output.stderr, "err\n");
    }

    #[test]
    fn a_failure_carries_the_command_line_and_stderr() {
        let invocation = Invocation::new("sh")
            .arg("-c")
            .arg("echo 'bad thing' >&2; exit 3");
        let error = run(&invocation).unwrap_err();
        assert!(matches!(error.kind, ToolErrorKind::Failed { .. }));
        let text = error.to_string();
        assert!(
            text.starts_with("`sh -c 'echo '\\''bad thing'\\'' >&2; exit 3'` failed"),
            "{text}"
        );
        assert!(text.ends_with("bad thing"), "{text}");
    }

    #[test]
    fn a_missing_program_is_not_found() {
        let error = run(&Invocation::new("/nonexistent/gpuprof-tool")).unwrap_err();
        assert!(matches!(error.kind, ToolErrorKind::NotFound));
        assert!(error.to_string().contains("program not found"));
    }

    #[test]
    fn a_silent_tool_is_stopped_after_the_idle_timeout() {
        let invocation = Invocation::new("sh")
            .arg("-c")
            .arg("echo started; sleep 30");
        let started = Instant::now();
        let error =
            run_streaming(&invocation, Some(Duration::from_millis(300)), |_| {}).unwrap_err();
        assert!(matches!(error.kind, ToolErrorKind::TimedOut { .. }));
        assert_eq!(error.stdout, "started\n");
        assert!(started.elapsed() < Duration::from_secs(20));
    }
}
