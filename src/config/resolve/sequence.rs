//! A variant that launches several kernels in order (`sequence`), such as
//! a two-pass reduction, a kernel and its finishing kernel, or a loop of
//! launches (a bitonic sort's stages, a reduction repeated until one block
//! is left). The variant's `args` declare the buffers the steps share; each
//! step names a kernel of the variant's source, its geometry and its
//! arguments (`{ name = "in" }` passes the variant's buffer, a scalar is
//! written as in `args`), or groups steps (`steps = [...]`); any step may be
//! repeated by loops (`repeat`) and left out where a condition fails
//! (`when`). Compiled once here; at every size the loops are unrolled into
//! the flat list of launches the harness makes.

use std::collections::BTreeSet;
use std::ops::Range;
use std::path::Path;

use toml::Spanned;

use super::Context;
use super::args::ArgSpec;
use super::values::{Bounds, Compiled, grid_bounds, shared_bytes_bounds};
use crate::config::error::ConfigError;
use crate::config::expr::{self, Condition, ExprError};
use crate::config::kernels::Kernels;
use crate::config::plan::{Arg, Step, StepArg};
use crate::config::raw::{RawLoop, RawStep, RawVariant};
use crate::model::suite::Size;

/// The most launches one sequence makes at one size: a loop that would
/// make more is taken for one whose `while` never fails.
const MAX_LAUNCHES: usize = 4096;

/// The most turns all the loops of one sequence take at one size (turns
/// that launch nothing, where `when` fails, count too).
const MAX_TURNS: usize = 65_536;

/// One step, compiled: a launch or a group, repeated by its loops and
/// left out where `when` fails.
pub(super) struct StepValues<'a> {
    /// Where the step sits (`2`, or `2.1` inside a group), for messages.
    place: String,
    span: Range<usize>,
    loops: Vec<LoopValues<'a>>,
    when: Option<Guard<'a>>,
    body: Body<'a>,
}

enum Body<'a> {
    Launch(LaunchValues<'a>),
    Group(Vec<StepValues<'a>>),
}

/// A launch, compiled.
struct LaunchValues<'a> {
    kernel: usize,
    grid: Vec<Compiled<'a>>,
    block: Vec<Compiled<'a>>,
    block_span: Range<usize>,
    shared: Option<Compiled<'a>>,
    args: Vec<StepSpec<'a>>,
}

/// `for = "k"`, `from`, `while` and `next` of one loop, compiled.
struct LoopValues<'a> {
    variable: String,
    from: Compiled<'a>,
    condition: Guard<'a>,
    next: Compiled<'a>,
}

/// A condition (a loop's `while`, a step's `when`), parsed, with its text
/// for errors.
struct Guard<'a> {
    condition: Condition,
    source: &'a Spanned<String>,
    /// "the `when` of step 2 of variant `x`".
    what: String,
}

/// A step's argument: the index of one of the variant's buffers, or a
/// scalar of its own.
enum StepSpec<'a> {
    /// The variant's buffer `index`, from element `offset` on.
    Buffer {
        index: usize,
        offset: Option<Compiled<'a>>,
    },
    Scalar(ArgSpec<'a>),
}

/// What a sequence's compilation gathers on the way: the distinct kernels
/// in order of first use, and how every launch passes its buffers.
struct Gathered {
    entries: Vec<String>,
    passes: Vec<super::parameters::PassedBuffer>,
}

/// What every step of one sequence is compiled against: the variant's
/// name, its source as the toml names it with the kernels found in it,
/// and the variant's buffers.
struct Site<'s, 'c> {
    name: &'s str,
    shown: &'s Path,
    kernels: &'s Kernels,
    buffers: &'s [ArgSpec<'c>],
}

/// The launches of a sequence at one size, as its loops unroll.
struct Unrolled<'p> {
    launches: Vec<Step>,
    turns: usize,
    /// The places of the launch steps that launched, at any size so far.
    launched: &'p mut BTreeSet<String>,
}

impl<'c> Context<'c> {
    /// The refusals of a sequence variant: no `entry`, `grid`, `block` or
    /// `shared_bytes` of its own, and steps that are each a launch or a
    /// group, never both nor neither.
    pub(super) fn check_sequence_keys(
        &self,
        raw: &RawVariant,
        name: &str,
    ) -> Result<(), ConfigError> {
        let Some(sequence) = &raw.sequence else {
            return Ok(());
        };
        let own = [
            ("entry", raw.entry.as_ref().map(Spanned::span)),
            ("grid", raw.grid.as_ref().map(Spanned::span)),
            ("block", raw.block.as_ref().map(Spanned::span)),
            ("shared_bytes", raw.shared_bytes.as_ref().map(Spanned::span)),
        ];
        if let Some((key, Some(span))) = own.into_iter().find(|(_, span)| span.is_some()) {
            return Err(self
                .doc
                .error(
                    span,
                    format!(
                        "variant `{name}` launches a `sequence`, so it takes no `{key}` of its own"
                    ),
                )
                .help(format!("give `{key}` in each step of `sequence`")));
        }
        if sequence.get_ref().is_empty() {
            return Err(self
                .doc
                .error(sequence.span(), format!("the `sequence` of variant `{name}` is empty"))
                .help("list its launches in order: sequence = [{ entry = \"...\", grid = [...], block = [...], args = [...] }]"));
        }
        self.check_step_shapes(sequence.get_ref(), ("", &[]), name)
    }

    /// Each step is a launch (`entry`, `grid`, `block`, `args`) or a group
    /// (`steps`), and a group is not empty.
    fn check_step_shapes(
        &self,
        steps: &[Spanned<RawStep>],
        (within, bound): (&str, &[&str]),
        name: &str,
    ) -> Result<(), ConfigError> {
        for (index, step) in steps.iter().enumerate() {
            let place = format!("{within}{}", index + 1);
            let raw = step.get_ref();
            let mut looped = bound.to_vec();
            looped.extend(raw.repeat.iter().flat_map(|r| {
                r.get_ref()
                    .iter()
                    .map(|one| one.get_ref().variable.get_ref().as_str())
            }));
            let whose = || format!("step {place} of variant `{name}`");
            match &raw.steps {
                Some(group) => {
                    let launch_keys = [
                        ("entry", raw.entry.as_ref().map(Spanned::span)),
                        ("grid", raw.grid.as_ref().map(Spanned::span)),
                        ("block", raw.block.as_ref().map(Spanned::span)),
                        ("shared_bytes", raw.shared_bytes.as_ref().map(Spanned::span)),
                    ];
                    if let Some((key, Some(span))) =
                        launch_keys.into_iter().find(|(_, span)| span.is_some())
                    {
                        return Err(self
                            .doc
                            .error(span, format!("{} groups `steps`, so it takes no `{key}`", whose()))
                            .help(format!("give `{key}` in each of its `steps`, or make it one launch without `steps`")));
                    }
                    if raw.args.is_some() {
                        return Err(self
                            .doc
                            .error(
                                step.span(),
                                format!("{} groups `steps`, so it takes no `args`", whose()),
                            )
                            .help("give `args` in each of its `steps`"));
                    }
                    if group.get_ref().is_empty() {
                        return Err(self
                            .doc
                            .error(
                                group.span(),
                                format!("the `steps` of {} are empty", whose()),
                            )
                            .help(
                                "list the launches the group makes in order, or remove the step",
                            ));
                    }
                    self.check_step_shapes(group.get_ref(), (&format!("{place}."), &looped), name)?;
                }
                None => {
                    let needed = [
                        ("entry", raw.entry.is_some(), "entry = \"kernel\""),
                        ("grid", raw.grid.is_some(), "grid = [\"cdiv(N, 256)\"]"),
                        ("block", raw.block.is_some(), "block = [256]"),
                        (
                            "args",
                            raw.args.is_some(),
                            "args = [{ name = \"in\" }, ...]",
                        ),
                    ];
                    self.refuse_looped_instance(raw, &looped, &place, name)?;
                    if let Some((key, _, example)) = needed.into_iter().find(|(_, given, _)| !given)
                    {
                        return Err(self
                            .doc
                            .error(step.span(), format!("{} has no `{key}`", whose()))
                            .help(format!("a step launches a kernel: give {example}; or it groups launches: steps = [...]")));
                    }
                }
            }
            if let Some(repeat) = &raw.repeat
                && repeat.get_ref().is_empty()
            {
                return Err(self
                    .doc
                    .error(repeat.span(), format!("the `repeat` of {} is empty", whose()))
                    .help("give its loops, outermost first: repeat = [{ for = \"k\", from = 2, while = \"k <= N\", next = \"k * 2\" }], or remove it"));
            }
        }
        Ok(())
    }

    /// The sequence's steps compiled, and the distinct kernels they launch
    /// in order of first use; `buffers` are the variant's `args`.
    pub(super) fn sequence_steps(
        &self,
        raw: &'c RawVariant,
        name: &str,
        source: (&Path, &Kernels),
        buffers: &[ArgSpec<'c>],
    ) -> Result<(Vec<String>, Vec<StepValues<'c>>), ConfigError> {
        let Some(sequence) = &raw.sequence else {
            return Ok((Vec::new(), Vec::new()));
        };
        if let Some(scalar) = buffers.iter().find(|a| matches!(a, ArgSpec::Scalar(_))) {
            // Args a sequence variant takes from [defaults] (written for the
            // suite's one-launch variants) hold scalars as a rule.
            let (whose, help) = match raw.args.is_none() {
                true => (
                    "the `args` it takes from [defaults]",
                    "give this variant its own `args`, listing only the buffers its steps share, and the scalars in the `args` of each step of `sequence`",
                ),
                false => (
                    "its `args`",
                    "give scalars in the `args` of each step of `sequence`",
                ),
            };
            return Err(self
                .doc
                .error(scalar.name_span(), format!("variant `{name}` launches a `sequence`, so {whose} declare the buffers its steps share; scalar `{}` belongs to a step", scalar.name()))
                .help(help));
        }
        let mut gathered = Gathered {
            entries: Vec::new(),
            passes: Vec::new(),
        };
        // Errors name the source as the toml does, not its canonical path.
        let shown = self.shown_source(raw, source.0);
        let site = Site {
            name,
            shown: &shown,
            kernels: source.1,
            buffers,
        };
        let steps = self.compile_steps(sequence.get_ref(), "", &[], &site, &mut gathered)?;
        // A buffer no step passes would be filled, timed and compared, yet
        // no kernel would ever see it (a module variable is set by name).
        if let Some(unused) = buffers.iter().enumerate().find_map(|(at, arg)| match arg {
            ArgSpec::Buffer(buffer) if buffer.symbol.is_none() && !passes_buffer(&steps, at) => {
                Some(arg)
            }
            _ => None,
        }) {
            return Err(self
                .doc
                .error(
                    unused.name_span(),
                    format!(
                        "buffer `{}` of variant `{name}` is passed by no step of its `sequence`",
                        unused.name()
                    ),
                )
                .help(format!(
                    "pass it in the `args` of the step that uses it, {{ name = \"{}\" }}, or remove it",
                    unused.name()
                )));
        }
        let buffers: Vec<&ArgSpec> = buffers.iter().collect();
        self.refuse_read_only_outputs(&buffers, &gathered.passes)?;
        Ok((gathered.entries, steps))
    }

    /// `steps` compiled; `within` is the place of their group (`2.`),
    /// `bound` the loop variables of the groups around them.
    fn compile_steps(
        &self,
        steps: &'c [Spanned<RawStep>],
        within: &str,
        bound: &[&str],
        site: &Site<'_, 'c>,
        gathered: &mut Gathered,
    ) -> Result<Vec<StepValues<'c>>, ConfigError> {
        let name = site.name;
        let mut compiled = Vec::with_capacity(steps.len());
        for (index, step) in steps.iter().enumerate() {
            let place = format!("{within}{}", index + 1);
            let raw = step.get_ref();
            let scope = |key: &str, _: bool| format!("{key} of step {place} of variant `{name}`");
            let loops = self.compile_loops(raw, bound, &scope)?;
            let mut inner: Vec<&str> = bound.to_vec();
            inner.extend(loops.iter().map(|l| l.variable.as_str()));
            let when = match &raw.when {
                Some(when) => Some(self.guard(when, scope("the `when`", false))?),
                None => None,
            };
            let body = match &raw.steps {
                Some(group) => Body::Group(self.compile_steps(
                    group.get_ref(),
                    &format!("{place}."),
                    &inner,
                    site,
                    gathered,
                )?),
                None => Body::Launch(self.compile_launch(raw, &place, site, gathered)?),
            };
            compiled.push(StepValues {
                place,
                span: step.span(),
                loops,
                when,
                body,
            });
        }
        Ok(compiled)
    }

    /// Refuses an entry whose `{expression}` uses a loop variable (of
    /// `looped`): a template instance is compiled per size, before any
    /// loop turns, so a loop cannot choose it.
    fn refuse_looped_instance(
        &self,
        raw: &RawStep,
        looped: &[&str],
        place: &str,
        name: &str,
    ) -> Result<(), ConfigError> {
        let Some(entry) = &raw.entry else {
            return Ok(());
        };
        let text = entry.get_ref();
        let braced = text
            .split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}').map(|(inside, _)| inside));
        let used = braced.flat_map(|inside| {
            inside
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|word| looped.contains(word))
        });
        match used.into_iter().next() {
            Some(variable) => Err(self
                .doc
                .error(entry.span(), format!("the entry of step {place} of variant `{name}` uses loop variable `{variable}` in a template argument, which a loop cannot choose: each size compiles its instances before any loop turns"))
                .help(format!("give one step per instance, each with a `when` on `{variable}` (when = \"{variable} >= 1024\"), or pass `{variable}` to the kernel as a scalar"))),
            None => Ok(()),
        }
    }

    /// One launch step compiled, its arguments checked against its kernel.
    fn compile_launch(
        &self,
        raw: &'c RawStep,
        place: &str,
        site: &Site<'_, 'c>,
        gathered: &mut Gathered,
    ) -> Result<LaunchValues<'c>, ConfigError> {
        let (name, buffers) = (site.name, site.buffers);
        let (Some(entry), Some(grid), Some(block), Some(args)) =
            (&raw.entry, &raw.grid, &raw.block, &raw.args)
        else {
            unreachable!(
                "check_step_shapes refuses a launch step without entry, grid, block or args"
            )
        };
        self.check_entry(entry, site.shown, site.kernels)?;
        let kernel = match gathered.entries.iter().position(|e| e == entry.get_ref()) {
            Some(known) => known,
            None => {
                gathered.entries.push(entry.get_ref().clone());
                gathered.entries.len() - 1
            }
        };
        let scope = |key: &str, _: bool| format!("{key} of step {place} of variant `{name}`");
        let geometry = |value| super::Merged {
            value,
            inherited: false,
        };
        let args: Vec<StepSpec> = args
            .iter()
            .map(|arg| self.step_arg(arg, buffers, &|key: &str| scope(key, false)))
            .collect::<Result<_, _>>()?;
        if let Some(declared) = site.kernels.find(entry.get_ref()) {
            let passed: Vec<&ArgSpec> = args
                .iter()
                .map(|arg| match arg {
                    StepSpec::Buffer { index, .. } => &buffers[*index],
                    StepSpec::Scalar(spec) => spec,
                })
                .collect();
            let launch = super::parameters::Launcher::Step(place, name);
            gathered.passes.extend(self.check_arguments(
                entry,
                declared,
                &site.kernels.aliases,
                &passed,
                &launch,
            )?);
        }
        Ok(LaunchValues {
            kernel,
            grid: self.geometry(&geometry(grid), "grid", &scope)?,
            block: self.geometry(&geometry(block), "block", &scope)?,
            block_span: block.span(),
            shared: match &raw.shared_bytes {
                Some(value) => Some(self.compile(value, scope("shared_bytes", false))?),
                None => None,
            },
            args,
        })
    }

    /// A step's loops compiled: each variable a new identifier (not a size
    /// symbol, a constant or the variable of a loop around it).
    fn compile_loops(
        &self,
        raw: &'c RawStep,
        bound: &[&str],
        scope: &dyn Fn(&str, bool) -> String,
    ) -> Result<Vec<LoopValues<'c>>, ConfigError> {
        let Some(repeat) = &raw.repeat else {
            return Ok(Vec::new());
        };
        let mut loops: Vec<LoopValues> = Vec::new();
        for spanned in repeat.get_ref() {
            let RawLoop {
                variable,
                from,
                condition,
                next,
            } = spanned.get_ref();
            let text = variable.get_ref();
            if !super::suite::is_identifier(text) {
                return Err(self
                    .doc
                    .error(
                        variable.span(),
                        format!("loop variable {text:?} is not a name"),
                    )
                    .help(
                        "name it with letters, digits and '_', starting with a letter: for = \"k\"",
                    ));
            }
            let taken = match self.sizes.first() {
                Some(size) if size.symbols.contains_key(text) => {
                    Some("a size symbol or constant of the suite")
                }
                _ if bound.contains(&text.as_str())
                    || loops.iter().any(|l| l.variable == *text) =>
                {
                    Some("the variable of another loop around this step")
                }
                _ => None,
            };
            if let Some(taken) = taken {
                return Err(self
                    .doc
                    .error(
                        variable.span(),
                        format!("loop variable `{text}` is already {taken}"),
                    )
                    .help("give the loop a name of its own"));
            }
            let what = |key: &str| scope(&format!("the `{key}` of loop `{text}`"), false);
            loops.push(LoopValues {
                variable: text.clone(),
                from: self.compile(from, what("from"))?,
                condition: self.guard(condition, what("while"))?,
                next: self.compile(next, what("next"))?,
            });
        }
        Ok(loops)
    }

    /// A condition parsed, or the error pointing into it.
    fn guard(&self, source: &'c Spanned<String>, what: String) -> Result<Guard<'c>, ConfigError> {
        match expr::parse_condition(source.get_ref()) {
            Ok(condition) => Ok(Guard {
                condition,
                source,
                what,
            }),
            Err(e) => Err(self.guard_error(source, &what, &e, None)),
        }
    }

    fn guard_error(
        &self,
        source: &Spanned<String>,
        what: &str,
        error: &ExprError,
        size: Option<&Size>,
    ) -> ConfigError {
        let span = self
            .doc
            .expression_span(source.span(), source.get_ref(), error.span.clone());
        let at = size.map_or(String::new(), |s| format!(" at {}", s.label));
        self.doc
            .error(span, format!("{} in {what}{at}", error.message()))
            .help(error.help())
    }

    /// Whether `guard` holds at `size`.
    fn holds(&self, guard: &Guard, size: &Size) -> Result<bool, ConfigError> {
        match guard.condition.failing(&size.symbols) {
            Ok(failing) => Ok(failing.is_none()),
            Err(e) => Err(self.guard_error(guard.source, &guard.what, &e, Some(size))),
        }
    }

    /// A step's argument: `{ name = "in" }` names one of the variant's
    /// buffers (`offset = "256"` passes it from that element on); anything
    /// more is a scalar.
    fn step_arg(
        &self,
        arg: &'c Spanned<crate::config::raw::RawArg>,
        buffers: &[ArgSpec<'c>],
        scope: &dyn Fn(&str) -> String,
    ) -> Result<StepSpec<'c>, ConfigError> {
        let raw = arg.get_ref();
        let name = raw.name.get_ref();
        if raw.buffer.is_some() {
            return Err(self
                .doc
                .error(arg.span(), format!("step argument `{name}` declares a buffer"))
                .help("declare buffers in the variant's `args`; a step passes one as { name = \"...\" }"));
        }
        if raw.scalar.is_some() {
            return Ok(StepSpec::Scalar(self.arg(arg, scope)?));
        }
        match buffers.iter().position(|b| b.name() == name) {
            Some(index) => Ok(StepSpec::Buffer {
                index,
                offset: match &raw.offset {
                    Some(offset) => {
                        Some(self.compile(offset, scope(&format!("the offset into `{name}`")))?)
                    }
                    None => None,
                },
            }),
            None => {
                let names: Vec<&str> = buffers.iter().map(ArgSpec::name).collect();
                Err(self
                    .doc
                    .error(raw.name.span(), format!("`{name}` is not a buffer of the variant"))
                    .help(format!(
                        "a step passes one of the variant's `args` by name ({}), or a scalar {{ name, scalar = TYPE, value }}",
                        names.join(", ")
                    )))
            }
        }
    }

    /// The launches of the steps at `size`, their loops unrolled, where the
    /// variant's buffers are `buffers_at`; the places of the launch steps
    /// that launch are added to `launched`.
    pub(super) fn steps_at(
        &self,
        steps: &[StepValues],
        (name, size): (&str, &Size),
        buffers_at: &[Arg],
        launched: &mut BTreeSet<String>,
    ) -> Result<Vec<Step>, ConfigError> {
        let mut unrolled = Unrolled {
            launches: Vec::new(),
            turns: 0,
            launched,
        };
        for step in steps {
            self.unroll(step, 0, name, size, buffers_at, &mut unrolled)?;
        }
        if unrolled.launches.is_empty()
            && let Some(span) = first_guard(steps)
        {
            return Err(self
                .doc
                .error(span, format!("the `sequence` of variant `{name}` launches nothing at {}: every step's `when` or `repeat` leaves it out", size.label))
                .help("make at least one launch happen at every size, or leave this size out of the suite"));
        }
        Ok(unrolled.launches)
    }

    /// The launches of `step` from its loop `depth` on, where the loops
    /// outside it have bound their variables in `at`.
    fn unroll(
        &self,
        step: &StepValues,
        depth: usize,
        name: &str,
        at: &Size,
        buffers_at: &[Arg],
        unrolled: &mut Unrolled,
    ) -> Result<(), ConfigError> {
        let Some(one) = step.loops.get(depth) else {
            if let Some(when) = &step.when
                && !self.holds(when, at)?
            {
                return Ok(());
            }
            return match &step.body {
                Body::Group(steps) => steps
                    .iter()
                    .try_for_each(|inner| self.unroll(inner, 0, name, at, buffers_at, unrolled)),
                Body::Launch(launch) => {
                    if unrolled.launches.len() == MAX_LAUNCHES {
                        return Err(self.endless(
                            step,
                            name,
                            at,
                            &format!("would launch more than {MAX_LAUNCHES} kernels"),
                        ));
                    }
                    unrolled
                        .launches
                        .push(self.launch_at(launch, at, buffers_at)?);
                    if !unrolled.launched.contains(&step.place) {
                        unrolled.launched.insert(step.place.clone());
                    }
                    Ok(())
                }
            };
        };
        let whole = Bounds {
            min: -(2f64.powi(53)),
            max: 2f64.powi(53),
            max_text: "2^53".into(),
            help: "a loop variable takes whole numbers: round with floor(), ceil() or cdiv()"
                .into(),
        };
        let mut value = self.whole(&one.from, at, &whole)? as i64;
        loop {
            let mut turn = at.clone();
            turn.symbols.insert(one.variable.clone(), value);
            turn.label = format!("{}, {}={value}", at.label, one.variable);
            if !self.holds(&one.condition, &turn)? {
                return Ok(());
            }
            unrolled.turns += 1;
            if unrolled.turns > MAX_TURNS {
                return Err(self.endless(
                    step,
                    name,
                    &turn,
                    &format!("takes more than {MAX_TURNS} turns of its loops"),
                ));
            }
            self.unroll(step, depth + 1, name, &turn, buffers_at, unrolled)?;
            let next = self.whole(&one.next, &turn, &whole)? as i64;
            if next == value {
                return Err(self
                    .doc
                    .error(one.next.source.span(), format!("`next` leaves loop variable `{}` at {value} in step {} of variant `{name}` at {}, so the loop would never end", one.variable, step.place, turn.label))
                    .help(format!("`next` gives the loop variable's next value from this one, e.g. next = \"{} * 2\" or \"{} - 1\"", one.variable, one.variable)));
            }
            value = next;
        }
    }

    /// The error of a sequence that goes past the launches or turns one
    /// run may take, at `step` (at its first loop's `while`, else at the
    /// step itself, inside the group whose loops repeat it).
    fn endless(&self, step: &StepValues, name: &str, at: &Size, what: &str) -> ConfigError {
        let span = step
            .loops
            .first()
            .map_or(step.span.clone(), |l| l.condition.source.span());
        self.doc
            .error(span, format!("step {} of variant `{name}` {what} at {}", step.place, at.label))
            .help(format!("if a loop runs away, make its `while` become false: `next` must move its variable toward the end (k * 2 up to N, j / 2 down to 1); if the loops are right, the size is too large to profile launch by launch (a run may make at most {MAX_LAUNCHES} launches per sequence and size, and ncu takes about half a second for each): leave that size out of `sizes`"))
    }

    /// One launch at `at` (a size, and the loop variables around it).
    fn launch_at(
        &self,
        launch: &LaunchValues,
        at: &Size,
        buffers_at: &[Arg],
    ) -> Result<Step, ConfigError> {
        Ok(Step {
            kernel: launch.kernel,
            grid: self.dims(&launch.grid, at, grid_bounds)?,
            block: self.block(&launch.block, launch.block_span.clone(), at)?,
            shared_bytes: match &launch.shared {
                Some(c) => self.whole(c, at, &shared_bytes_bounds())? as u32,
                None => 0,
            },
            args: launch
                .args
                .iter()
                .map(|arg| match arg {
                    StepSpec::Buffer { index, offset } => Ok(StepArg::Buffer {
                        index: *index,
                        offset: match offset {
                            Some(offset) => self.buffer_offset(offset, &buffers_at[*index], at)?,
                            None => 0,
                        },
                    }),
                    StepSpec::Scalar(spec) => match self.instantiate(spec, at)? {
                        Arg::Scalar(scalar) => Ok(StepArg::Scalar(scalar)),
                        Arg::Buffer(_) => {
                            unreachable!("a scalar spec instantiates to a scalar")
                        }
                    },
                })
                .collect::<Result<_, _>>()?,
        })
    }
}

impl Context<'_> {
    /// Refuses a launch step of `steps` that launched at no size
    /// (`launched` holds the places of those that did): its `when` or the
    /// loops around it leave it out everywhere, which is a mistake, not a
    /// plan.
    pub(super) fn refuse_unlaunched(
        &self,
        steps: &[StepValues],
        name: &str,
        launched: &BTreeSet<String>,
    ) -> Result<(), ConfigError> {
        for step in steps {
            match &step.body {
                Body::Group(inner) => self.refuse_unlaunched(inner, name, launched)?,
                Body::Launch(_) if !launched.contains(&step.place) => {
                    return Err(self
                        .doc
                        .error(step.span.clone(), format!("step {} of variant `{name}` is launched at no size: its `when` or the loops around it leave it out at every size and turn", step.place))
                        .help("check its `when` against the `while` of the loops around it (a step inside a loop while stride >= 1024 with when = \"stride < 1024\" never runs), or remove the step"));
                }
                Body::Launch(_) => {}
            }
        }
        Ok(())
    }
}

/// The span of the first `when` or `while` among `steps`: a sequence
/// that launches nothing has one that left every launch out.
fn first_guard(steps: &[StepValues]) -> Option<Range<usize>> {
    steps.iter().find_map(|step| {
        let own = step
            .when
            .iter()
            .chain(step.loops.iter().map(|l| &l.condition));
        own.map(|guard| guard.source.span())
            .next()
            .or_else(|| match &step.body {
                Body::Group(inner) => first_guard(inner),
                Body::Launch(_) => None,
            })
    })
}

/// Whether any launch of `steps` passes the variant's buffer `index`.
fn passes_buffer(steps: &[StepValues], index: usize) -> bool {
    steps.iter().any(|step| match &step.body {
        Body::Launch(launch) => launch
            .args
            .iter()
            .any(|a| matches!(a, StepSpec::Buffer { index: i, .. } if *i == index)),
        Body::Group(inner) => passes_buffer(inner, index),
    })
}

impl Context<'_> {
    /// The element a step passes `buffer` from at `size`: a whole number
    /// inside the buffer.
    fn buffer_offset(
        &self,
        offset: &Compiled,
        buffer: &Arg,
        size: &Size,
    ) -> Result<u64, ConfigError> {
        let Arg::Buffer(buffer) = buffer else {
            return Ok(0);
        };
        let bounds = Bounds {
            min: 0.0,
            max: buffer.count.saturating_sub(1) as f64,
            max_text: format!(
                "{} (the last element of `{}`, {} at {})",
                buffer.count.saturating_sub(1),
                buffer.name,
                crate::analysis::format::counted(buffer.count as usize, "element"),
                size.label
            ),
            help: "an offset counts elements of the buffer, from 0".into(),
        };
        Ok(self.whole(offset, size, &bounds)? as u64)
    }
}

#[cfg(test)]
mod tests {
    use crate::config::resolve::tests::{err, help, ok, suite};

    #[test]
    fn a_step_passes_a_buffer_from_an_element_on() {
        use crate::config::plan::StepArg;
        let halves = |offset: &str| {
            sequence_variant(
                "{ name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" },\n\
                 { name = \"out\", buffer = \"f32\", count = \"N\", output = true },",
                &format!(
                    "{{ entry = \"scale_by<2>\", grid = [\"N / 512\"], block = [256], args = [{{ name = \"in\" }}, {{ name = \"out\" }}, {{ name = \"n\", scalar = \"i32\", value = \"N / 2\" }}] }},\n\
                     {{ entry = \"scale_by<2>\", grid = [\"N / 512\"], block = [256], args = [{{ name = \"in\", offset = {offset} }}, {{ name = \"out\", offset = {offset} }}, {{ name = \"n\", scalar = \"i32\", value = \"N / 2\" }}] }},"
                ),
            )
        };
        let plan = ok(&halves("\"N / 2\""));
        let second = &plan.variants[0].instances[1].sequence[1];
        assert_eq!(
            second.args[..2],
            [
                StepArg::Buffer {
                    index: 0,
                    offset: 2048
                },
                StepArg::Buffer {
                    index: 1,
                    offset: 2048
                }
            ]
        );
        let e = err(&halves("\"N\""));
        assert_eq!(
            e.message(),
            "the offset into `in` of step 2 of variant `plain` is 1024 at N=1024, but must be at most 1023 (the last element of `in`, 1024 elements at N=1024)"
        );
        // Outside a step an offset means nothing.
        let e = err(&suite(
            "",
            "grid = [1]\nblock = [1]\nargs = [{ name = \"in\", buffer = \"f32\", count = \"N\", fill = 0, offset = 4 }]",
            "[[variant]]\nname = \"plain\"",
        ));
        assert_eq!(e.message(), "argument `in` cannot have `offset` here");
    }

    /// A suite whose variant `plain` shares the buffers `args` between
    /// the launches `steps`.
    fn sequence_variant(args: &str, steps: &str) -> String {
        suite(
            "",
            "",
            &format!(
                "[[variant]]\nname = \"plain\"\nsource = \"kernels/scale.cu\"\n\
                 args = [\n{args}\n]\nsequence = [\n{steps}\n]"
            ),
        )
        .replace("entry = \"scale\"\n\n", "\n")
    }

    /// A suite whose variant `plain` launches `steps` over buffers `a` and
    /// `b` (N floats each, `b` the output).
    fn looped(steps: &str) -> String {
        sequence_variant(
            "{ name = \"a\", buffer = \"f32\", count = \"N\", fill = \"random\" },\n\
             { name = \"b\", buffer = \"f32\", count = \"N\", output = true },",
            steps,
        )
    }

    /// Each launch of the variant at size `at` (0 or 1): its grid's x, its
    /// two buffers' indices and its last scalar.
    fn launched(plan: &crate::config::Plan, at: usize) -> Vec<(u32, usize, usize, f64)> {
        use crate::config::plan::StepArg;
        plan.variants[0].instances[at]
            .sequence
            .iter()
            .map(|step| {
                let index = |arg: &StepArg| match arg {
                    StepArg::Buffer { index, .. } => *index,
                    StepArg::Scalar(_) => usize::MAX,
                };
                let last = match step.args.last() {
                    Some(StepArg::Scalar(s)) => s.value,
                    _ => f64::NAN,
                };
                (
                    step.grid[0],
                    index(&step.args[0]),
                    index(&step.args[1]),
                    last,
                )
            })
            .collect()
    }

    #[test]
    fn a_repeated_step_is_launched_once_per_turn_of_its_loops() {
        // A reduction until one block is left: n = N, N/256, … while n > 1.
        let plan = ok(&looped(
            "{ entry = \"scale_by<2>\", repeat = [{ for = \"n\", from = \"N\", while = \"n > 1\", next = \"cdiv(n, 256)\" }], grid = [\"cdiv(n, 256)\"], block = [256], args = [{ name = \"a\" }, { name = \"b\" }, { name = \"n\", scalar = \"i32\", value = \"n\" }] },",
        ));
        // N = 1024: n = 1024, 4; N = 4096: n = 4096, 16.
        assert_eq!(launched(&plan, 0), [(4, 0, 1, 1024.0), (1, 0, 1, 4.0)]);
        assert_eq!(launched(&plan, 1), [(16, 0, 1, 4096.0), (1, 0, 1, 16.0)]);
        // Nested loops, the inner one over the outer's variable: a bitonic
        // sort's stages (k = 2, 4, …, N; j = k/2 … 1).
        let plan = ok(&looped(
            "{ entry = \"scale_by<2>\", repeat = [{ for = \"k\", from = 2, while = \"k <= N\", next = \"k * 2\" }, { for = \"j\", from = \"k / 2\", while = \"j >= 1\", next = \"floor(j / 2)\" }], grid = [\"N / 256\"], block = [256], args = [{ name = \"a\" }, { name = \"b\" }, { name = \"jk\", scalar = \"i32\", value = \"j * 100000 + k\" }] },",
        ));
        let stages: Vec<f64> = launched(&plan, 0).iter().map(|l| l.3).collect();
        assert_eq!(stages.len(), 55, "log2(1024) * (log2(1024) + 1) / 2");
        assert_eq!(stages[..4], [100_002.0, 200_004.0, 100_004.0, 400_008.0]);
        assert_eq!(plan.variants[0].instances[1].sequence.len(), 78);
    }

    #[test]
    fn a_group_repeats_its_steps_in_turn_and_when_leaves_launches_out() {
        // Ping-pong: a → b, b → a, three turns; a last launch only at N > 1024.
        let plan = ok(&looped(
            "{ repeat = [{ for = \"t\", from = 0, while = \"t < 3\", next = \"t + 1\" }], steps = [\n\
               { entry = \"scale_by<2>\", grid = [4], block = [256], args = [{ name = \"a\" }, { name = \"b\" }, { name = \"n\", scalar = \"i32\", value = \"t\" }] },\n\
               { entry = \"scale_by<2>\", grid = [4], block = [256], args = [{ name = \"b\" }, { name = \"a\" }, { name = \"n\", scalar = \"i32\", value = \"t\" }] },\n\
             ] },\n\
             { entry = \"scale_by<2>\", when = \"N > 1024\", grid = [1], block = [32], args = [{ name = \"a\" }, { name = \"b\" }, { name = \"n\", scalar = \"i32\", value = 9 }] },",
        ));
        let turns = [
            (4, 0, 1, 0.0),
            (4, 1, 0, 0.0),
            (4, 0, 1, 1.0),
            (4, 1, 0, 1.0),
            (4, 0, 1, 2.0),
            (4, 1, 0, 2.0),
        ];
        assert_eq!(launched(&plan, 0), turns);
        let mut with_last = turns.to_vec();
        with_last.push((1, 0, 1, 9.0));
        assert_eq!(launched(&plan, 1), with_last);
    }

    #[test]
    fn loops_that_would_not_end_or_launch_nothing_are_refused() {
        let step = |repeat: &str, when: &str| {
            looped(&format!(
                "{{ entry = \"scale_by<2>\", {repeat}{when}grid = [1], block = [32], args = [{{ name = \"a\" }}, {{ name = \"b\" }}, {{ name = \"n\", scalar = \"i32\", value = 1 }}] }},"
            ))
        };
        let e = err(&step(
            "repeat = [{ for = \"k\", from = 1, while = \"k <= N\", next = \"k\" }], ",
            "",
        ));
        assert_eq!(
            e.message(),
            "`next` leaves loop variable `k` at 1 in step 1 of variant `plain` at N=1024, k=1, so the loop would never end"
        );
        let e = err(&step(
            "repeat = [{ for = \"k\", from = 1, while = \"k > 0\", next = \"k + 1\" }], ",
            "",
        ));
        assert_eq!(
            e.message(),
            "step 1 of variant `plain` would launch more than 4096 kernels at N=1024, k=4097"
        );
        let e = err(&step("", "when = \"N > 2048\", "));
        assert_eq!(
            e.message(),
            "the `sequence` of variant `plain` launches nothing at N=1024: every step's `when` or `repeat` leaves it out"
        );
        let e = err(&step(
            "repeat = [{ for = \"N\", from = 1, while = \"N < 4\", next = \"N + 1\" }], ",
            "",
        ));
        assert_eq!(
            e.message(),
            "loop variable `N` is already a size symbol or constant of the suite"
        );
        let e = err(&step(
            "repeat = [{ for = \"k\", from = 1, while = \"k < kk\", next = \"k + 1\" }], ",
            "",
        ));
        assert_eq!(
            e.message(),
            "unknown symbol `kk` in the `while` of loop `k` of step 1 of variant `plain` at N=1024, k=1"
        );
        assert!(help(&e).contains("did you mean `k`"), "{e}");
        let e = err(&step(
            "repeat = [{ for = \"k\", from = 1, while = \"k\", next = \"k + 1\" }], ",
            "",
        ));
        assert_eq!(
            e.message(),
            "`k` compares nothing in the `while` of loop `k` of step 1 of variant `plain`"
        );
        let e = err(&step(
            "repeat = [{ for = \"k\", from = \"N / 3\", while = \"k < N\", next = \"k + 1\" }], ",
            "",
        ));
        assert!(
            e.message().starts_with(
                "the `from` of loop `k` of step 1 of variant `plain` must be a whole number"
            ),
            "{e}"
        );
        // Past the limit inside a group, the error points at the launch
        // step the group's loop repeats.
        let text = looped(
            "{ repeat = [{ for = \"t\", from = 0, while = \"t < N\", next = \"t + 1\" }], steps = [\n\
               { entry = \"scale_by<2>\", grid = [1], block = [32], args = [{ name = \"a\" }, { name = \"b\" }, { name = \"n\", scalar = \"i32\", value = 1 }] },\n\
               { entry = \"scale_by<2>\", grid = [2], block = [32], args = [{ name = \"b\" }, { name = \"a\" }, { name = \"n\", scalar = \"i32\", value = 1 }] },\n\
             ] },",
        );
        let e = crate::config::resolve::tests::fails(
            &text,
            "step 1.1 of variant `plain` would launch more than 4096 kernels at N=4096, t=2048",
            "{ entry = \"scale_by<2>\", grid = [1]",
        );
        assert!(help(&e).contains("leave that size out of `sizes`"), "{e}");
        // A loop cannot choose a template instance.
        let e = err(&step(
            "repeat = [{ for = \"k\", from = 1, while = \"k <= 2\", next = \"k + 1\" }], ",
            "",
        )
        .replace("entry = \"scale_by<2>\"", "entry = \"scale_by<{k}>\""));
        assert_eq!(
            e.message(),
            "the entry of step 1 of variant `plain` uses loop variable `k` in a template argument, which a loop cannot choose: each size compiles its instances before any loop turns"
        );
        // A step that its `when` and the loops around it leave out at every
        // size is a mistake, even where another step launches.
        let e = err(&looped(
            "{ repeat = [{ for = \"s\", from = 4, while = \"s >= 2\", next = \"s / 2\" }], steps = [\n\
               { entry = \"scale_by<2>\", grid = [1], block = [32], args = [{ name = \"a\" }, { name = \"b\" }, { name = \"n\", scalar = \"i32\", value = \"s\" }] },\n\
               { entry = \"scale_by<2>\", when = \"s < 2\", grid = [1], block = [32], args = [{ name = \"a\" }, { name = \"b\" }, { name = \"n\", scalar = \"i32\", value = 1 }] },\n\
             ] },",
        ));
        assert_eq!(
            e.message(),
            "step 1.2 of variant `plain` is launched at no size: its `when` or the loops around it leave it out at every size and turn"
        );
        // A group is steps only; a launch needs all of its keys.
        let e = err(&looped(
            "{ entry = \"scale\", steps = [{ entry = \"scale\", grid = [1], block = [1], args = [] }] },",
        ));
        assert_eq!(
            e.message(),
            "step 1 of variant `plain` groups `steps`, so it takes no `entry`"
        );
        let e = err(&looped(
            "{ steps = [{ entry = \"scale_by<2>\", grid = [1], args = [{ name = \"a\" }, { name = \"b\" }, { name = \"n\", scalar = \"i32\", value = 1 }] }] },",
        ));
        assert_eq!(e.message(), "step 1.1 of variant `plain` has no `block`");
        let e = err(&looped(
            "{ steps = [{ entry = \"scale_by<2>\", grid = [1], block = [1], args = [{ name = \"a\" }, { name = \"n\", scalar = \"i32\", value = 1 }] }] },",
        ));
        assert!(
            e.message().contains("step 1.1 of variant `plain`"),
            "the argument check names the step inside its group: {e}"
        );
    }

    #[test]
    fn a_sequence_launches_its_steps_in_order_sharing_the_variants_buffers() {
        use crate::config::plan::StepArg;
        let buffers = r#"args = [
      { name = "in", buffer = "f32", count = "N", fill = "random" },
      { name = "partial", buffer = "f32", count = 64, fill = "zeros" },
      { name = "out", buffer = "f32", count = 1, output = true },
    ]"#;
        let steps = r#"sequence = [
      { entry = "scale_by<2>", grid = ["cdiv(N, 256)"], block = [256], args = [{ name = "in" }, { name = "partial" }, { name = "n", scalar = "i32", value = "N" }] },
      { entry = "scale", grid = [1], block = [64], shared_bytes = 256, args = [{ name = "partial" }, { name = "out" }, { name = "f", scalar = "f32", value = 0.5 }, { name = "n", scalar = "i32", value = 64 }] },
    ]"#;
        let text = suite(
            "",
            "",
            &format!(
                "[[variant]]\nname = \"plain\"\nsource = \"kernels/scale.cu\"\n{buffers}\n{steps}"
            ),
        )
        .replace("entry = \"scale\"\n\n", "\n");
        let plan = ok(&text);
        let variant = &plan.variants[0];
        assert_eq!(
            variant.kernel().unwrap().entries(),
            ["scale_by<2>", "scale"]
        );
        let instance = &variant.instances[1];
        assert_eq!(instance.sequence.len(), 2);
        assert_eq!(
            (instance.grid, instance.block),
            ([16, 1, 1], [256, 1, 1]),
            "the first step's"
        );
        let second = &instance.sequence[1];
        assert_eq!(
            (
                second.kernel,
                second.grid,
                second.block,
                second.shared_bytes
            ),
            (1, [1, 1, 1], [64, 1, 1], 256)
        );
        assert_eq!(
            second.args[..2],
            [
                StepArg::Buffer {
                    index: 1,
                    offset: 0
                },
                StepArg::Buffer {
                    index: 2,
                    offset: 0
                }
            ]
        );
        assert!(matches!(&second.args[2], StepArg::Scalar(s) if s.value == 0.5));

        let e = err(&text.replace(
            "{ name = \"partial\" }, { name = \"out\" }",
            "{ name = \"partial\" }, { name = \"result\" }",
        ));
        assert_eq!(e.message(), "`result` is not a buffer of the variant");
        assert!(help(&e).contains("(in, partial, out)"), "{e}");
        let e = err(&text.replace(
            "source = \"kernels/scale.cu\"\n",
            "source = \"kernels/scale.cu\"\ngrid = [1]\n",
        ));
        assert_eq!(
            e.message(),
            "variant `plain` launches a `sequence`, so it takes no `grid` of its own"
        );
        let e = err(&text.replace(
            "{ name = \"out\", buffer",
            "{ name = \"k\", scalar = \"i32\", value = 1 },\n  { name = \"out\", buffer",
        ));
        assert!(e.message().contains("scalar `k` belongs to a step"), "{e}");
        // Args from [defaults], written for one-launch variants, say so.
        let inherited = suite(
            "",
            "args = [\n  { name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" },\n  { name = \"n\", scalar = \"i32\", value = \"N\" },\n]",
            "[[variant]]\nname = \"plain\"\nsource = \"kernels/scale.cu\"\nsequence = [\n  { entry = \"scale_by<2>\", grid = [1], block = [32], args = [{ name = \"in\" }, { name = \"in\" }, { name = \"n\", scalar = \"i32\", value = \"N\" }] },\n]",
        )
        .replace("entry = \"scale\"\n", "");
        let e = err(&inherited);
        assert_eq!(
            e.message(),
            "variant `plain` launches a `sequence`, so the `args` it takes from [defaults] declare the buffers its steps share; scalar `n` belongs to a step"
        );
        assert!(
            help(&e).starts_with("give this variant its own `args`"),
            "{e}"
        );
        let e = err(&text.replace(
            "entry = \"scale\", grid = [1]",
            "entry = \"scal\", grid = [1]",
        ));
        assert_eq!(
            e.message(),
            "`scal` is not a kernel of tests/configs/errors/kernels/scale.cu"
        );
        let e = err(&text.replace(
            "{ name = \"out\", buffer = \"f32\", count = 1, output = true },",
            "{ name = \"out\", buffer = \"f32\", count = 1, output = true },\n      { name = \"spare\", buffer = \"f32\", count = 1, output = true },",
        ));
        assert_eq!(
            e.message(),
            "buffer `spare` of variant `plain` is passed by no step of its `sequence`"
        );
    }
}
