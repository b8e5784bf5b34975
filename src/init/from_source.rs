//! `gpuprof init --from FILE.cu`: a starting variants.toml for a user's own
//! file. Every kernel the file defines becomes a variant (a template named
//! by the instance its host code launches, or marked for its arguments to
//! be filled in), its parameter list becomes `args` and its geometry comes
//! from the file's launches where they can be read.
//!
//! - Pointers: a `const` one is an input; another is read from its uses in
//!   the kernel's body (`kernels::pointer_use`): written only, an output
//!   (poisoned); read and written, an output with a fill; read only, an
//!   input. A pointer handed to a `__device__` function of the file or
//!   its headers is followed into it. Where the body cannot tell (a
//!   pointer handed to inline assembly or a library), filled and compared,
//!   which holds whatever the kernel does with it, with the advice to drop
//!   one half.
//! - Geometry: a `<<<g, b>>>` launch of the kernel, directly or through a
//!   function pointer the file assigns it to, with `dim3` variables,
//!   integer constants, variable initializers and `sizeof` of scalar types
//!   (the shared memory's `THREADS * sizeof(uint32_t)`) put in, and
//!   the host variables the launch passes as the kernel's integer scalars
//!   taken as N, unless the file computes them (`max_elems_per_block =
//!   2 * block_sz`: its value, not N) and does not allocate with them. A
//!   constant the launch's grid uses that is the file's problem size (not
//!   a block's; bounding a kernel or sizing an allocation: `#define SIZE
//!   16384`) gives `sizes` and is taken as N too; where N cannot be it,
//!   the grid evaluated from it is marked. Else a default in as many
//!   dimensions as the body indexes (`threadIdx.y` → 2-D), with buffer
//!   counts to match (`N*N`).
//! - Loops: a launch inside host loops whose variables it uses (a bitonic
//!   sort's `for (k = 2; k <= n; k <<= 1)`) makes the variant a sequence
//!   of one step that `repeat` runs over them, translated from the loops'
//!   headers (`loops`); its buffers stay in the variant's `args`, its
//!   scalars go to the step, the loop variables' as themselves. Any other
//!   loop around the launch (a timing loop) is noted and left out.
//! - Headers the file includes that are not beside it are looked for in
//!   the folders above it, for `include_dirs`.
//! - A runner (a file that defines no kernel but launches kernels its
//!   headers define) drafts the kernels it launches, each variant's
//!   `source` the header that defines it, read with the runner's launches
//!   and the headers' type aliases and one-expression macros.
//!
//! Everything guessed is marked `# fill in:`, which `--check` lists.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::build::headers::folder_of;
pub(super) use crate::config::kernels::is_identifier;
use crate::config::kernels::{self, DeviceFunction, Kernel, Kernels, Launch, PointerUse};
use crate::config::plan::ElementType;
use crate::config::signature::{self, Parameter, Takes};

use super::compiled;
use super::expression::{Expr, Reader, member_read, translate};
use super::loops::{self, Around, Code, Turn};

/// Where the suite's source is and where the suite is written.
pub struct Origin<'a> {
    /// The source as the user typed it: named in messages, and where its
    /// headers are looked for.
    pub typed: &'a Path,
    /// The suite's folder as typed.
    pub folder: &'a Path,
    /// The source relative to the suite's folder (`source = …`).
    pub relative: &'a Path,
}

/// The default block of a kernel that indexes 1, 2 or 3 dimensions.
const BLOCKS: [&[u32]; 3] = [&[256], &[16, 16], &[8, 8, 4]];

/// The default size N for kernels of 1, 2 or 3 dimensions: about a million
/// elements each (N, N×N, N×N×N).
const SIZES: [u32; 3] = [1_048_576, 1024, 128];

/// The buffer count for 1, 2 or 3 dimensions.
const COUNTS: [&str; 3] = ["N", "N*N", "N*N*N"];

/// One file given to `--from`, read for its kernels: where they are
/// defined, what compiles it, and the loops around its launches.
struct ReadFile<'f> {
    origin: &'f Origin<'f>,
    scanned: Kernels,
    near: NearIncludes,
    /// Why nvcc compiles it (`None`: NVRTC).
    host: Option<String>,
    homes: Homes,
    code: Code,
}

impl<'f> ReadFile<'f> {
    fn new(source: &'f str, origin: &'f Origin<'f>) -> Result<ReadFile<'f>, String> {
        let mut scanned = kernels::scan_file(origin.typed, source);
        let near = near_includes(source, origin);
        // The `__device__` functions and macros of its headers, which its
        // kernels may hand their pointers to, and the defaults of a
        // configuration's members (`struct Options { int size = 1 << 12; }`
        // in its header), where the host reads its sizes from one.
        let mut defaults = scanned.member_defaults.clone();
        for (_, text) in &near.headers {
            let header = kernels::scan(text);
            scanned.functions.extend(header.functions);
            defaults.extend(header.member_defaults);
        }
        scanned.read_members_at_their_defaults(&defaults);
        // NVRTC finds no C or C++ library header, so a header of the
        // file's that includes one (or launches kernels) makes it nvcc's
        // too.
        let host = scanned.host_code.clone().or_else(|| {
            crate::build::headers::host_code_of_headers(origin.typed, source, &near.folders(), &[])
                .map(|(header, what)| format!("a header it includes, {header}, {what}"))
        });
        let homes = match scanned.kernels.is_empty() {
            false => Homes::own(origin, near.lines(origin), scanned.kernels.len()),
            true => Homes::included(&mut scanned, source, origin)
                .ok_or_else(|| no_kernels(source, origin, scanned.declared_by_macro))?,
        };
        Ok(ReadFile {
            origin,
            scanned,
            near,
            host,
            homes,
            code: Code::new(source),
        })
    }

    /// The header of a suite of this file alone.
    fn header(&self, suite_name: &str) -> String {
        match self.homes.runner {
            false => own_header(self.origin.relative, suite_name, self.host.as_deref()),
            true => runner_header(self.origin.relative, suite_name, &self.homes),
        }
    }
}

/// The variants.toml text for the kernels of the CUDA files `files`
/// (each one's text and where it is): one suite, of one file or of a
/// ladder whose steps are files of their own (`naive.cu`, `tiled.cu`).
/// Variants keep the files' order; names two files share get the file's
/// name after them.
pub fn suite_for_files(files: &[(&str, &Origin)], suite_name: &str) -> Result<String, String> {
    let read: Vec<ReadFile> = files
        .iter()
        .map(|(source, origin)| ReadFile::new(source, origin))
        .collect::<Result<_, _>>()?;
    let mut drafts: Vec<Vec<Draft>> = Vec::new();
    let mut types_notes = String::new();
    for file in &read {
        // A kernel whose name says it warms the GPU up (run once before
        // the timed ones, its result unused) is no step: gpuprof warms up
        // each variant itself.
        let warms_up = |kernel: &Kernel| {
            let name = kernel.name.to_lowercase().replace('_', "");
            name.contains("warmup")
        };
        let left_out: Vec<&str> = match file.scanned.kernels.iter().all(warms_up) {
            true => Vec::new(),
            false => file
                .scanned
                .kernels
                .iter()
                .filter(|k| warms_up(k))
                .map(|k| k.name.as_str())
                .collect(),
        };
        if !left_out.is_empty() {
            let _ = writeln!(
                types_notes,
                "# Not drafted: {} (its name says it warms the GPU up before the timed kernels; gpuprof warms each variant up itself).",
                left_out.join(", ")
            );
        }
        let mut these: Vec<Draft> = file
            .scanned
            .kernels
            .iter()
            .filter(|kernel| !left_out.contains(&kernel.name.as_str()))
            .flat_map(|kernel| {
                let launches = instances(kernel, &file.scanned, &file.code);
                let per_instance = launches.len() > 1;
                launches.into_iter().map(move |launched| {
                    Draft::new(kernel, (launched, per_instance), &file.scanned, &file.code)
                })
            })
            .collect();
        // In a suite of several files, each file is named.
        let named = match files.len() {
            1 => "The file".to_string(),
            _ => file.origin.relative.display().to_string(),
        };
        types_notes.push_str(&read_types_from_compiler(
            &mut these,
            file.origin,
            &named,
            file.host.is_some(),
            &file.near.folders(),
        ));
        drafts.push(these);
    }
    name_apart(&mut drafts, &read);
    let problems: Vec<(usize, Problem)> = read
        .iter()
        .zip(&drafts)
        .map(|(file, these)| {
            let dimensions = these.iter().map(|d| d.dimensions).max().unwrap_or(1);
            (dimensions, Problem::of(these, &file.scanned, dimensions))
        })
        .collect();
    // A copy among kernels that do something else (a transpose's
    // `copy_kernel`) is the ladder's ceiling: the bandwidth the others
    // could reach, not a step, and no answer to compare them with.
    let says = |draft: &Draft, word: &str| draft.name.to_lowercase().contains(word);
    if !drafts.iter().flatten().all(|d| says(d, "copy")) {
        for draft in drafts.iter_mut().flatten() {
            draft.ceiling = says(draft, "copy");
        }
    }
    let first_step = |named: &dyn Fn(&Draft) -> bool| {
        drafts.iter().enumerate().find_map(|(f, these)| {
            these
                .iter()
                .position(|d| !d.ceiling && named(d))
                .map(|d| (f, d))
        })
    };
    let naive = first_step(&|d| says(d, "naive"));
    let (baseline_file, baseline_draft) = naive.or_else(|| first_step(&|_| true)).unwrap_or((0, 0));
    let mut text = match read.as_slice() {
        [only] => only.header(suite_name),
        _ => files_header(&read, suite_name),
    };
    text.insert_str(text.find("version = 1").unwrap_or(0), &types_notes);
    let (dimensions, problem) = &problems[baseline_file];
    let others: Vec<String> = read
        .iter()
        .zip(&problems)
        .filter(|(_, (_, other))| other.n != problem.n)
        .map(|(file, (_, other))| match other.names.is_empty() {
            true => format!("{} sets none", file.origin.relative.display()),
            false => format!(
                "{}'s {} is {}",
                file.origin.relative.display(),
                other.names.join(", "),
                other.n
            ),
        })
        .collect();
    let mut fixed: Vec<&str> = Vec::new();
    for draft in &drafts[baseline_file] {
        for name in draft.sizes_compiled_in(problem).1 {
            if !fixed.contains(&name) {
                fixed.push(name);
            }
        }
    }
    let fixed = match fixed.as_slice() {
        [] => String::new(),
        names => format!(
            "; the kernels are compiled with the file's #define {}: at another size they still read {} (guard it with #ifndef and give it in each variant's defines)",
            names.join(", #define "),
            problem.n
        ),
    };
    let _ = writeln!(
        text,
        "sizes = [{}]                # fill in: the problem sizes, each binds N{}{fixed}{}{}",
        problem.n,
        match problem.names.is_empty() {
            true => String::new(),
            false => format!(
                "; {} is {} {}",
                problem.n,
                match read.len() {
                    1 => "the file's".to_string(),
                    _ => format!("{}'s", read[baseline_file].origin.relative.display()),
                },
                problem.names.join(", ")
            ),
        },
        match others.is_empty() {
            true => String::new(),
            false => format!(" (the files differ: {})", others.join("; ")),
        },
        match (dimensions, problem.apart.as_slice()) {
            (1, _) => String::new(),
            (2, []) => " (N×N elements: a kernel indexes in 2-D)".to_string(),
            (_, []) => " (N×N×N elements: a kernel indexes in 3-D)".to_string(),
            (_, apart) => format!(
                " (a kernel indexes in {dimensions}-D; the file's other sides are drafted as {})",
                apart
                    .iter()
                    .map(|(name, over_n)| format!("{name} = {over_n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    );
    let baseline = &drafts[baseline_file][baseline_draft];
    let _ = match naive {
        Some(_) => writeln!(
            text,
            "baseline = {}  # its name says naive: every other variant's output is compared with it, and every speedup measured against it",
            quoted(&baseline.name)
        ),
        None => writeln!(
            text,
            "baseline = {}  # fill in: the variant every other variant's output is compared with, and every speedup measured against",
            quoted(&baseline.name)
        ),
    };
    for ((file, these), (_, problem)) in read.iter().zip(&drafts).zip(&problems) {
        for draft in these {
            // (Several instances of a template draft from one kernel.)
            let kernel = file
                .scanned
                .kernels
                .iter()
                .position(|k| std::ptr::eq(k, draft.kernel));
            let home = &file.homes.files[kernel.map_or(0, |k| file.homes.of_kernel[k])];
            text.push_str(&draft.variant(&home.relative, &home.includes, problem, baseline));
        }
    }
    Ok(text)
}

/// Makes the drafts' names unique across files: a name two files share
/// gets its file's stem (`reduce-shared`), or, where the stems are the
/// same too, its file's folder (`sumReduction-bank_conflicts`).
fn name_apart(drafts: &mut [Vec<Draft>], read: &[ReadFile]) {
    let label = |file: &ReadFile, by_folder: bool| -> String {
        let path = file.origin.typed;
        let part = match by_folder {
            false => path.file_stem().map(|p| p.to_os_string()),
            true => absolute(path)
                .parent()
                .and_then(Path::file_name)
                .map(|p| p.to_os_string()),
        };
        part.map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let stems: Vec<String> = read.iter().map(|f| label(f, false)).collect();
    let by_folder = stems
        .iter()
        .enumerate()
        .any(|(i, s)| stems[..i].contains(s));
    let names: Vec<(usize, String)> = drafts
        .iter()
        .enumerate()
        .flat_map(|(f, these)| these.iter().map(move |d| (f, d.name.clone())))
        .collect();
    for (f, these) in drafts.iter_mut().enumerate() {
        for draft in these.iter_mut() {
            let shared = names
                .iter()
                .any(|(other, name)| *other != f && *name == draft.name);
            if shared {
                draft.name = format!("{}-{}", draft.name, label(&read[f], by_folder));
            }
        }
    }
}

/// The header of a suite of several files' kernels: each file, and
/// which compiler builds it.
fn files_header(read: &[ReadFile], suite_name: &str) -> String {
    let mut intro = String::from(
        "# A starting suite for the kernels of several files, written by `gpuprof init --from`,\n\
         # each variant compiled from its own file:\n",
    );
    for file in read {
        let compiler = match (&file.host, file.homes.runner) {
            (_, true) => "the kernels it launches, each from the file that defines it".to_string(),
            (Some(reason), false) => format!("nvcc compiles it ({reason})"),
            (None, false) => "NVRTC compiles it (device code only)".to_string(),
        };
        let _ = writeln!(intro, "#   {}: {compiler}", file.origin.relative.display());
    }
    suite_table(
        &intro,
        suite_name,
        &format!("kernels of {} files", read.len()),
    )
}

/// The files that define the drafted kernels: the file given, or, for a
/// file that only launches kernels (a runner: `utils.cu` includes
/// `kernel/kernel_3.cuh` and launches `mysgemm_v3<64, 64, 8, 8>` from a
/// host wrapper), the headers it includes that define the kernels it
/// launches.
struct Homes {
    /// Whether the kernels are a runner's, defined in its headers.
    runner: bool,
    files: Vec<Home>,
    /// For each kernel of the scan, in order, its file in `files`.
    of_kernel: Vec<usize>,
    /// Kernels the headers define that the runner does not launch: not
    /// drafted, named in the suite's header.
    not_launched: Vec<String>,
}

/// A file that defines drafted kernels.
struct Home {
    /// Its path from the suite's folder (`source = …`).
    relative: PathBuf,
    /// The `include_dirs` lines for the headers it includes.
    includes: String,
}

impl Homes {
    /// Every kernel in the file given, whose `include_dirs` lines are
    /// `includes`.
    fn own(origin: &Origin, includes: String, kernels: usize) -> Homes {
        Homes {
            runner: false,
            files: vec![Home {
                relative: origin.relative.to_path_buf(),
                includes,
            }],
            of_kernel: vec![0; kernels],
            not_launched: Vec::new(),
        }
    }

    /// The kernels the runner `source` launches, from the headers it
    /// includes with quotes, put into `scanned` (which had none) with
    /// the headers' type aliases and one-expression macros, which their
    /// parameters and the runner's geometry may use. `None` when it
    /// launches none of them.
    fn included(scanned: &mut Kernels, source: &str, origin: &Origin) -> Option<Homes> {
        let mut defined: Vec<(Kernel, usize)> = Vec::new();
        let mut headers: Vec<(PathBuf, String)> = Vec::new();
        let mut search = Search::new(folder_of(origin.typed));
        for (path, text) in runner_headers(source, origin, &mut search) {
            let found = kernels::scan(&text);
            scanned.aliases.extend(found.aliases);
            scanned
                .expression_functions
                .extend(found.expression_functions);
            scanned.functions.extend(found.functions);
            if found.kernels.is_empty() {
                continue;
            }
            for kernel in found.kernels {
                match defined.iter_mut().find(|(k, _)| k.name == kernel.name) {
                    // Declared in one header, defined in a later one.
                    Some(known) if known.0.body.is_none() && kernel.body.is_some() => {
                        *known = (kernel, headers.len())
                    }
                    Some(_) => {}
                    None => defined.push((kernel, headers.len())),
                }
            }
            headers.push((path, text));
        }
        // Kernels the headers only declare are defined in a file compiled
        // on its own (declarations in include/, definitions in src/): the
        // nearest such file is the kernel's home.
        let mut nearby: Option<Vec<(PathBuf, String, Kernels)>> = None;
        for (kernel, header) in defined.iter_mut().filter(|(k, _)| k.body.is_none()) {
            let files = nearby.get_or_insert_with(|| search.nearby_sources());
            let definition = files.iter().enumerate().find_map(|(index, (_, _, found))| {
                let defined_here = found
                    .kernels
                    .iter()
                    .find(|k| k.name == kernel.name && k.body.is_some())?;
                Some((index, defined_here.clone()))
            });
            if let Some((index, definition)) = definition {
                let path = &files[index].0;
                *header = match headers.iter().position(|(known, _)| known == path) {
                    Some(known) => known,
                    None => {
                        scanned.functions.extend(files[index].2.functions.clone());
                        headers.push((path.clone(), files[index].1.clone()));
                        headers.len() - 1
                    }
                };
                *kernel = definition;
            }
        }
        scanned.kernels = defined.iter().map(|(k, _)| k.clone()).collect();
        let (launched, not): (Vec<_>, Vec<_>) = defined.into_iter().partition(|(kernel, _)| {
            matches!(
                launched(kernel, scanned),
                Launched::Directly(_) | Launched::Through(..)
            )
        });
        if launched.is_empty() {
            scanned.kernels.clear();
            return None;
        }
        scanned.kernels = launched.iter().map(|(k, _)| k.clone()).collect();
        let mut files: Vec<Home> = Vec::new();
        let mut of_header: Vec<Option<usize>> = vec![None; headers.len()];
        let mut of_kernel = Vec::new();
        for (_, header) in &launched {
            let index = *of_header[*header].get_or_insert_with(|| {
                let (typed, text) = &headers[*header];
                let relative = pathdiff::diff_paths(absolute(typed), absolute(origin.folder))
                    .unwrap_or_else(|| absolute(typed));
                let home = Origin {
                    typed,
                    folder: origin.folder,
                    relative: &relative,
                };
                let includes = include_lines(text, &home);
                files.push(Home { relative, includes });
                files.len() - 1
            });
            of_kernel.push(index);
        }
        Some(Homes {
            runner: true,
            files,
            of_kernel,
            not_launched: not.into_iter().map(|(k, _)| k.name).collect(),
        })
    }
}

/// The header of a runner's suite: where its kernels come from and
/// where their launches were read.
fn runner_header(relative: &Path, suite_name: &str, homes: &Homes) -> String {
    let mut text = format!(
        "# A starting suite for the kernels {runner} launches, written by `gpuprof init --from`.\n\
         # {runner} defines no kernel: each variant's source is the file that\n\
         # defines its kernel (one it includes, or, for a kernel its headers only\n\
         # declare, the nearest file that defines it), and its entry, geometry and\n\
         # arguments are read from {runner}'s launches. Each such file is compiled\n\
         # on its own: by nvcc where it or a header it includes holds host code,\n\
         # else by NVRTC. The files:\n",
        runner = relative.display(),
    );
    for home in &homes.files {
        let _ = writeln!(text, "#   {}", home.relative.display());
    }
    if !homes.not_launched.is_empty() {
        let _ = writeln!(
            text,
            "# Not drafted: {}, which the files it includes define and {} does not launch.",
            homes.not_launched.join(", "),
            relative.display()
        );
    }
    suite_table(
        &text,
        suite_name,
        &format!("kernels {} launches", relative.display()),
    )
}

/// Gives the drafts of kernels whose parameter types the text does not
/// say (an alias the scan cannot follow) the types of their compiled
/// symbols (`compiled`); returns a comment for the header when the file
/// (`named` there: "The file", or its path in a suite of several) could
/// not be compiled, naming the types left to fill in.
fn read_types_from_compiler(
    drafts: &mut [Draft],
    origin: &Origin,
    named: &str,
    needs_nvcc: bool,
    near_folders: &[PathBuf],
) -> String {
    let unread: Vec<String> = drafts
        .iter()
        .filter(|d| !d.unread_types().is_empty())
        .filter_map(|d| d.compiled_entry.clone())
        .collect();
    if unread.is_empty() {
        return String::new();
    }
    match compiled::parameters_of(origin.typed, needs_nvcc, near_folders, &unread) {
        Ok(read) => {
            for entry in &read.left_out {
                if let Some(draft) = draft_for(drafts, entry) {
                    draft.compiled_out = true;
                }
            }
            for (entry, parameters) in read.parameters {
                if let Some(draft) = draft_for(drafts, &entry) {
                    draft.take_compiled_types(parameters);
                }
            }
            // An alias the text leaves open (`typedef double real;` under
            // `#ifdef USE_DP`, `float` otherwise) is what the compiler
            // saw, for every kernel of the file: `sizeof(real)` in an
            // allocation or a launch's shared memory is its size.
            let learned: Vec<(String, String)> = drafts
                .iter()
                .flat_map(|d| &d.compiled_types)
                .filter_map(|(written, compiled)| signature::alias_compiled(written, compiled))
                .collect();
            for draft in drafts.iter_mut() {
                draft.take_aliases(&learned);
            }
            String::new()
        }
        Err(why) => {
            let mut types: Vec<String> = Vec::new();
            for written in drafts.iter().flat_map(Draft::unread_types) {
                if !types.contains(&written) {
                    types.push(written);
                }
            }
            format!(
                "# {} does not say what {} are; compiling it to read them failed\n\
                 # ({}), so their buffers are left to fill in.\n",
                named,
                types.join(", "),
                why.replace('\n', " ")
            )
        }
    }
}

/// The draft whose compiled entry is `entry`.
fn draft_for<'d, 'a>(drafts: &'d mut [Draft<'a>], entry: &str) -> Option<&'d mut Draft<'a>> {
    drafts
        .iter_mut()
        .find(|d| d.compiled_entry.as_deref() == Some(entry))
}

/// The header of a suite of the kernels the file defines: which
/// compiler builds it.
fn own_header(relative: &Path, suite_name: &str, host: Option<&str>) -> String {
    let compiler = match host {
        Some(reason) => format!("nvcc compiles it ({reason})"),
        None => "NVRTC compiles it (device code only)".to_string(),
    };
    let intro = format!(
        "# A starting suite for {file}, written by `gpuprof init --from`.\n# {compiler}.\n",
        file = relative.display()
    );
    suite_table(
        &intro,
        suite_name,
        &format!("kernels of {}", relative.display()),
    )
}

/// `intro`, what is left to fill in, and the `[suite]` table's name and
/// description.
fn suite_table(intro: &str, suite_name: &str, description: &str) -> String {
    format!(
        "{intro}# Fill in what is marked `fill in`: the problem sizes, each buffer's\n\
         # element count and each scalar's value, as numbers or expressions\n\
         # over N; then check it with `gpuprof report variants.toml --check`.\n\
         version = 1\n\n\
         [suite]\n\
         name = {}\n\
         description = {}\n",
        quoted(suite_name),
        quoted(description),
    )
}

/// Why a file without kernels is refused: the headers it includes that
/// hold kernels, when there are any.
fn no_kernels(source: &str, origin: &Origin, declared_by_macro: bool) -> String {
    let headers = headers_with_kernels(origin.typed, source);
    if declared_by_macro && headers.is_empty() {
        return format!(
            "{} declares its kernels through a macro (a `#define` that holds `__global__`), which init does not expand: write each variant by hand, `entry` the kernel's name as the macro makes it; `gpuprof report variants.toml --check` then compiles it and says whether each entry is there",
            origin.typed.display()
        );
    }
    let Some(first) = headers.first() else {
        // Kernels its headers declare, defined elsewhere and launched from
        // another file (a `main` that calls the wrappers of
        // `src/utils.cu`): the file near it that launches one of them.
        let mut search = Search::new(folder_of(origin.typed));
        let declared: Vec<String> = runner_headers(source, origin, &mut search)
            .iter()
            .flat_map(|(_, text)| kernels::scan(text).kernels)
            .map(|kernel| kernel.name)
            .collect();
        let itself = origin.typed.canonicalize().ok();
        let runner = match declared.is_empty() {
            true => None,
            false => search
                .nearby_sources()
                .into_iter()
                .find(|(path, _, found)| {
                    path.canonicalize().ok() != itself
                        && found
                            .launches
                            .iter()
                            .any(|launch| declared.contains(&kernels::entry_base(&launch.callee)))
                }),
        };
        let shown = |path: &Path| {
            std::env::current_dir()
                .ok()
                .and_then(|here| pathdiff::diff_paths(path, here))
                .unwrap_or_else(|| path.to_path_buf())
        };
        return match runner.map(|(path, ..)| shown(&path)) {
            Some(runner) => format!(
                "{} defines no __global__ function and launches none; {} near it launches kernels: give that file (`gpuprof init {} --from {}`)",
                origin.typed.display(),
                runner.display(),
                origin.folder.display(),
                runner.display()
            ),
            None => format!(
                "{} defines no __global__ function: give the .cu or .cuh file that holds your kernels",
                origin.typed.display()
            ),
        };
    };
    const SHOWN: usize = 8;
    let mut listed: Vec<String> = headers
        .iter()
        .take(SHOWN)
        .map(|h| h.display().to_string())
        .collect();
    if headers.len() > SHOWN {
        listed.push(format!("and {} more", headers.len() - SHOWN));
    }
    format!(
        "{} defines no __global__ function; the kernels are in the headers it includes: {} — give one of those (`gpuprof init {} --from {}`)",
        origin.typed.display(),
        listed.join(", "),
        origin.folder.display(),
        first.display()
    )
}

/// The headers `typed` includes with quotes, directly or through other
/// headers, that define kernels, as paths from where `typed` was named.
fn headers_with_kernels(typed: &Path, source: &str) -> Vec<PathBuf> {
    crate::build::headers::local_headers(typed, source)
        .into_iter()
        .filter(|(_, text)| kernels::scan(text).kernels.iter().any(|k| k.body.is_some()))
        .map(|(path, _)| path)
        .collect()
}

/// The headers a file includes that are not beside it: those found in a
/// folder near it, by folder, and those found nowhere.
struct NearIncludes {
    /// Each folder near the file that holds some, with the headers (as
    /// included: `"kernel1.cuh"`).
    found: Vec<(PathBuf, Vec<String>)>,
    /// Headers found nowhere, as included (`"kernel.cuh"`, `<mpi.h>`).
    missing: Vec<String>,
    /// The user headers it includes (beside it or in the folders near
    /// it), directly or through others, with their text.
    headers: Vec<(PathBuf, String)>,
}

/// The `include_dirs` line (and a hint for each header found nowhere) for
/// the headers `source` includes that are not beside it.
fn include_lines(source: &str, origin: &Origin) -> String {
    near_includes(source, origin).lines(origin)
}

/// The headers `source` (the file `origin`) includes that are not beside
/// it ([`NearIncludes`]).
fn near_includes(source: &str, origin: &Origin) -> NearIncludes {
    let beside = folder_of(origin.typed);
    let toolkit = crate::build::toolkit::include_dirs();
    // Whether `header`, included from the folder `from`, is there, where
    // the CUDA toolkit and the host compiler look, or in `also`.
    let compilers_find = |from: &Path, header: &str, also: &[PathBuf]| {
        from.join(header).is_file()
            || toolkit
                .iter()
                .chain(crate::build::toolkit::host_include_dirs())
                .chain(also)
                .any(|dir| dir.join(header).is_file())
    };
    let mut found: Vec<(PathBuf, Vec<String>)> = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    let mut search = Search::new(beside);
    for include in kernels::includes(source) {
        let header = &include.header;
        if compilers_find(beside, header, &[]) {
            continue;
        }
        let shown = match include.quoted {
            true => format!("\"{header}\""),
            false => format!("<{header}>"),
        };
        // A C++ library header (`<vector>`) has no extension. One with an
        // extension in no folder the compilers search nor near the file
        // (`<torch/extension.h>`, `<mpi.h>`) is a library's that nvcc will
        // not find either.
        let named = Path::new(header).extension().is_some();
        match search.folder_holding(header).filter(|_| named) {
            Some(folder) => match found.iter_mut().find(|(f, _)| *f == folder) {
                Some((_, headers)) => headers.push(shown),
                None => found.push((folder, vec![shown])),
            },
            None if include.quoted || named => missing.push(shown),
            None => {}
        }
    }
    let folders: Vec<PathBuf> = found.iter().map(|(folder, _)| folder.clone()).collect();
    let headers: Vec<(PathBuf, String)> =
        crate::build::headers::headers_in(origin.typed, source, &folders, &[])
            .into_iter()
            .map(|(path, bytes)| (path, String::from_utf8_lossy(&bytes).into_owned()))
            .collect();
    // A library's header that one of those includes and no compiler finds
    // (a PyTorch extension's helpers, `"utils.h"`, including
    // `<torch/extension.h>`).
    for (path, text) in &headers {
        for include in kernels::includes(text).into_iter().filter(|i| !i.quoted) {
            let header = &include.header;
            let shown = format!("<{header}>");
            let named = Path::new(header).extension().is_some();
            let known = compilers_find(folder_of(path), header, &folders);
            if named && !known && !missing.contains(&shown) {
                missing.push(shown);
            }
        }
    }
    NearIncludes {
        found,
        missing,
        headers,
    }
}

impl NearIncludes {
    /// The folders near the file that hold headers it includes.
    fn folders(&self) -> Vec<PathBuf> {
        self.found
            .iter()
            .map(|(folder, _)| folder.clone())
            .collect()
    }

    /// The `include_dirs` line, and a hint for the headers found nowhere,
    /// for the suite of the file `origin`.
    fn lines(&self, origin: &Origin) -> String {
        let (found, missing) = (&self.found, &self.missing);
        let mut text = String::new();
        if !found.is_empty() {
            let suite = absolute(origin.folder);
            let folders: Vec<String> = found
                .iter()
                .map(|(folder, _)| {
                    let relative = pathdiff::diff_paths(folder, &suite).unwrap_or(folder.clone());
                    quoted(&relative.display().to_string())
                })
                .collect();
            let headers: Vec<String> = found.iter().flat_map(|(_, h)| h.clone()).collect();
            let _ = writeln!(
                text,
                "include_dirs = [{}]  # fill in: the folder(s) that hold {} (found near the file, not beside it)",
                folders.join(", "),
                headers.join(", ")
            );
        }
        // A library's header found nowhere (`<torch/extension.h>`) is the
        // host code's, most likely: the kernels compile without it.
        // The toolkit's own headers are the compiler's to find, never left
        // out.
        let (libraries, own): (Vec<&String>, Vec<&String>) = missing.iter().partition(|header| {
            header.starts_with('<')
                && !crate::build::is_toolkit_header(header.trim_matches(['<', '>']))
        });
        if !libraries.is_empty() {
            let _ = writeln!(
                text,
                "device_only = true  # {} found nowhere (not beside the file, near it, nor where the CUDA toolkit and the host compiler look): gpuprof compiles the kernels without the file's host code, an empty header standing in for each; if the kernels need one, write include_dirs = [\"…\"] with its folder and drop this line",
                join_names(&libraries)
            );
        }
        if !own.is_empty() {
            let _ = writeln!(
                text,
                "# fill in: include_dirs = [\"…\"], the folder(s) that hold {}: not beside the file, in the folders near it, nor where the CUDA toolkit and the host compiler look",
                join_names(&own)
            );
        }
        text
    }
}

/// Header names joined with commas.
fn join_names(names: &[&String]) -> String {
    names
        .iter()
        .map(|name| name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The headers the runner `source` (the file `origin`) includes with
/// quotes, directly or through other headers, with their text: each
/// beside the file that includes it, else in the nearest folder near the
/// runner that holds it (a project built with `-I include`).
fn runner_headers(source: &str, origin: &Origin, search: &mut Search) -> Vec<(PathBuf, String)> {
    const MOST_FILES: usize = 256;
    crate::build::headers::included_files(origin.typed, source, MOST_FILES, |file, include| {
        if !include.quoted {
            return None;
        }
        let beside = folder_of(file).join(&include.header);
        match beside.is_file() {
            true => Some(beside),
            false => search
                .folder_holding(&include.header)
                .map(|folder| folder.join(&include.header)),
        }
    })
    .into_iter()
    .map(|(path, bytes)| (path, String::from_utf8_lossy(&bytes).into_owned()))
    .collect()
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A search for headers in the folders near a file: its folder and up to
/// four above it, each with two levels of subfolders, nearest first,
/// hidden folders left out, and a bound on the folders read.
struct Search {
    /// The folders to look in, nearest first (read lazily).
    roots: Vec<PathBuf>,
    /// The subfolders listed so far, by root.
    listed: Vec<Option<Vec<PathBuf>>>,
    /// Folders still allowed to be read.
    budget: usize,
}

impl Search {
    fn new(folder: &Path) -> Search {
        let folder = absolute(folder);
        // Never the filesystem's root: that is no project's folder.
        let roots: Vec<PathBuf> = folder
            .ancestors()
            .take(5)
            .filter(|a| a.parent().is_some())
            .map(Path::to_path_buf)
            .collect();
        Search {
            listed: vec![None; roots.len()],
            roots,
            budget: 600,
        }
    }

    /// The nearest folder that holds `header`.
    fn folder_holding(&mut self, header: &str) -> Option<PathBuf> {
        for index in 0..self.roots.len() {
            if self.listed[index].is_none() {
                let listed = self.subfolders(&self.roots[index].clone(), 2);
                self.listed[index] = Some(listed);
            }
            let folders = self.listed[index].as_deref().unwrap_or_default();
            if let Some(folder) = folders.iter().find(|f| f.join(header).is_file()) {
                return Some(folder.clone());
            }
        }
        None
    }

    /// The CUDA files (`.cu`, `.cuh`) in the file's folder, the one
    /// above it and their subfolders (two levels), nearest first, each
    /// with its text and scan; at most a few hundred.
    fn nearby_sources(&mut self) -> Vec<(PathBuf, String, Kernels)> {
        const MOST_FILES: usize = 400;
        let mut folders: Vec<PathBuf> = Vec::new();
        for index in 0..self.roots.len().min(2) {
            if self.listed[index].is_none() {
                let listed = self.subfolders(&self.roots[index].clone(), 2);
                self.listed[index] = Some(listed);
            }
            let root = self.roots[index].clone();
            let below = self.listed[index].iter().flatten().cloned();
            for folder in std::iter::once(root).chain(below) {
                if !folders.contains(&folder) {
                    folders.push(folder);
                }
            }
        }
        let mut files: Vec<PathBuf> = Vec::new();
        for folder in folders {
            let Ok(entries) = std::fs::read_dir(&folder) else {
                continue;
            };
            let mut here: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .filter(|p| p.extension().is_some_and(|e| e == "cu" || e == "cuh"))
                .collect();
            here.sort();
            files.extend(here);
        }
        files.truncate(MOST_FILES);
        files
            .into_iter()
            .filter_map(|path| {
                let bytes = std::fs::read(&path).ok()?;
                let text = crate::config::source_text(&bytes);
                let found = kernels::scan(&text);
                Some((path, text, found))
            })
            .collect()
    }

    /// `root`'s subfolders to `depth` levels, shallowest first, sorted.
    fn subfolders(&mut self, root: &Path, depth: usize) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut level = vec![root.to_path_buf()];
        for _ in 0..depth {
            let mut next = Vec::new();
            for folder in &level {
                if self.budget == 0 {
                    break;
                }
                self.budget -= 1;
                let Ok(entries) = std::fs::read_dir(folder) else {
                    continue;
                };
                let mut children: Vec<PathBuf> = entries
                    .filter_map(Result::ok)
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                    .map(|e| e.path())
                    .collect();
                children.sort();
                next.extend(children);
            }
            found.extend(next.iter().cloned());
            level = next;
        }
        found
    }
}

/// A variant name from a kernel name: `ns::reduce6` → `reduce6`.
fn variant_name(kernel: &str) -> String {
    kernel
        .rsplit("::")
        .next()
        .unwrap_or(kernel)
        .replace(['<', '>', ',', ' '], "_")
}

/// The launches `kernel`'s variants are drafted from: for a template
/// whose several instances the file launches one after another
/// (`smem_stride<1>`, `<2>`, `<32>`, `<33>`: a bank-conflict study), the
/// first launch of each, a variant each; else how the file launches it
/// ([`launched`]). Instances a `switch` or an `if … else` chooses between
/// when the program runs (`case 512: reduce<512><<<…>>>`) are one
/// variant, drafted from the first, with the others noted
/// ([`Draft::launched_again`]).
fn instances<'a>(kernel: &Kernel, scanned: &'a Kernels, code: &Code) -> Vec<Launched<'a>> {
    let launches = instances_launched(kernel, scanned);
    let chosen = launches.iter().any(|l| code.in_a_case(launch_start(l)))
        || launches.iter().enumerate().any(|(k, a)| {
            launches[k + 1..]
                .iter()
                .any(|b| code.in_other_branches(a.at, b.at))
        });
    match launches.len() > 1 && !chosen {
        true => launches.into_iter().map(Launched::Directly).collect(),
        false => vec![launched(kernel, scanned)],
    }
}

/// The first launch of each instance of the template `kernel` the file
/// launches directly, in the file's order (none for a kernel that is not
/// a template, or whose launches name no instance).
fn instances_launched<'a>(kernel: &Kernel, scanned: &'a Kernels) -> Vec<&'a Launch> {
    let mut first: Vec<&Launch> = Vec::new();
    if kernel.template.is_none() {
        return first;
    }
    for launch in scanned
        .launches
        .iter()
        .filter(|l| l.callee.contains('<') && kernels::entry_base(&l.callee) == kernel.name)
    {
        if !first.iter().any(|seen| seen.callee == launch.callee) {
            first.push(launch);
        }
    }
    first
}

/// The offset where `launch`'s statement names its kernel: before its
/// callee, which ends at the `<<<`.
fn launch_start(launch: &Launch) -> usize {
    launch.at.saturating_sub(launch.callee.chars().count())
}

/// A variant name's suffix for the instance `callee` launches: its
/// template arguments joined by `_` (`sgemm<64, 64, 8>`: `64_64_8`).
fn instance_suffix(callee: &str) -> String {
    let arguments = callee
        .split_once('<')
        .map_or("", |(_, rest)| rest.trim_end().trim_end_matches('>'));
    signature::split_top_level(arguments, false)
        .iter()
        .map(|argument| {
            argument
                .trim()
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("_")
}

/// How the file launches a kernel.
enum Launched<'a> {
    /// `kernel<<<…>>>`.
    Directly(&'a Launch),
    /// `pointer<<<…>>>` after `pointer = &kernel;`.
    Through(&'a Launch, &'a str),
    /// The one configuration the file launches some function pointer
    /// with, offered for a kernel it does not launch otherwise.
    Offered(&'a Launch),
    Not,
}

/// A launch configuration's grid or block: its expressions as written, and
/// the `dim3` declaration they come from.
struct Shape {
    values: Vec<String>,
    declared: Option<String>,
}

/// One `key = value` of a variant and the comment that says where it
/// comes from (with its leading spaces and `#`, or empty).
struct Setting {
    key: &'static str,
    value: String,
    comment: String,
}

impl Setting {
    fn new(key: &'static str, value: String, comment: String) -> Setting {
        Setting {
            key,
            value,
            comment,
        }
    }

    /// `key = value  # comment`, a line of a variant.
    fn line(&self) -> String {
        format!("{} = {}{}\n", self.key, self.value, self.comment)
    }

    /// `key = value`, inside a sequence's step.
    fn inline(&self) -> String {
        format!("{} = {}", self.key, self.value)
    }

    /// Its comment as a line of its own that names the key (`# fill in:
    /// grid: …`), for a step whose settings share one line.
    fn note(&self) -> Option<String> {
        let said = self.comment.trim_start().strip_prefix('#')?.trim_start();
        Some(match said.strip_prefix("fill in: ") {
            Some(rest) => format!("# fill in: {}: {rest}\n", self.key),
            None => format!("# {}: {said}\n", self.key),
        })
    }
}

/// One kernel's variant, read before any of it is written.
struct Draft<'a> {
    name: String,
    /// Whether it is one of the several instances of its template the
    /// file launches, each drafted as a variant ([`instances`]).
    per_instance: bool,
    kernel: &'a Kernel,
    /// The `__device__` functions of its file and headers, which its
    /// pointers may be handed to.
    functions: &'a [DeviceFunction],
    /// Its `entry`: the instance the file launches, or one to fill in.
    entry: Setting,
    parameters: Option<Vec<Parameter>>,
    launched: Launched<'a>,
    /// The dimensions the body indexes: of the block, of the grid.
    indexed: (usize, usize),
    /// The dimensions its buffers and geometry take (1 to 3).
    dimensions: usize,
    /// Its integer parameters that a body indexing in 1-D takes as the
    /// sides of the problem (`idx < M * N`): each is N, not N*N.
    sides: Vec<String>,
    /// The loops around its launch: those that repeat it (the variant is
    /// then a sequence of one repeated step), and notes on the others.
    around: Around,
    /// Its parameters whose types were read from the compiled kernel, as
    /// the file writes them and as the compiler saw them.
    compiled_types: Vec<(String, String)>,
    /// Its `void *` parameters typed by the cast the body reads them
    /// through (`(const uint4 *)x`): the parameter's name, its type as
    /// written and the type it is used as.
    cast_types: Vec<(String, String, String)>,
    /// Whether the compiled file lacks it (an `#ifdef` around it is off).
    compiled_out: bool,
    /// The entry its types can be read from once compiled: its name, or
    /// for a template the instance the file launches (none when the
    /// instance is left to fill in).
    compiled_entry: Option<String>,
    /// Whether it is the suite's ceiling (a copy among kernels that do
    /// something else): `role = "ceiling"`, not compared.
    ceiling: bool,
    /// Its file's scan as its launch sees it ([`Kernels::scoped_at`]).
    scoped: Kernels,
    /// The type its entry gives the template's first type parameter
    /// (`float` of `reduce<float>`), which a size the launch writes with
    /// a type the file does not fix there (`sizeof(scalar_t)` of a type
    /// dispatched at run time) is taken to be.
    element_type: Option<String>,
}

impl<'a> Draft<'a> {
    /// The draft of `kernel` from how it is `launched`, and whether that
    /// is one of several instances, each a variant.
    fn new(
        kernel: &'a Kernel,
        (launched, per_instance): (Launched<'a>, bool),
        file: &'a Kernels,
        code: &Code,
    ) -> Draft<'a> {
        let launch = match launched {
            Launched::Directly(l) | Launched::Through(l, _) | Launched::Offered(l) => Some(l),
            Launched::Not => None,
        };
        // The file's names as its launch sees them (a host function's own
        // `constexpr int BM = 32;`, not the next function's `BM = 128`).
        let scoped = launch.map_or_else(|| file.clone(), |l| file.scoped_at(l.at));
        let scanned = &scoped;
        let (entry, instance) = entry_of(kernel, launch, scanned);
        let element_type = kernel.template.as_deref().and_then(|template| {
            let position = signature::type_parameters(template)
                .iter()
                .position(|&is_type| is_type)?;
            instance.get(position).cloned()
        });
        let mut parameters = signature::parameters(
            &kernel.parameters,
            kernel.template.as_deref(),
            &instance,
            &scanned.aliases,
        );
        let cast_types = match (&mut parameters, kernel.body.as_deref()) {
            (Some(parameters), Some(body)) => type_by_casts(parameters, body, &scanned.aliases),
            _ => Vec::new(),
        };
        // An offered launch is another kernel's: its loops are not this one's.
        let around = match launched {
            Launched::Directly(l) | Launched::Through(l, _) => {
                let buffers = pointer_arguments(l, parameters.as_deref());
                let others: Vec<loops::OtherLaunch> = scanned
                    .launches
                    .iter()
                    .filter(|other| other.at != l.at)
                    .map(|other| {
                        (
                            other.at,
                            format!("{}<<<{}>>>", other.callee, other.config.join(", ")),
                        )
                    })
                    .collect();
                let passed = (
                    launch_names(l, scanned),
                    buffers.as_slice(),
                    others.as_slice(),
                );
                loops::around(code, l.at, passed, |text| {
                    let mut names = Vec::new();
                    names_through(text, scanned, 0, &mut names);
                    names
                })
            }
            Launched::Offered(_) | Launched::Not => Around::default(),
        };
        let indexed = kernel
            .body
            .as_deref()
            .map_or((1, 1), kernels::index_dimensions);
        let integers = parameter_names(&parameters, holds_a_count);
        let sides = kernel.body.as_deref().map_or_else(Vec::new, |body| {
            kernels::sides_of_a_flat_index(body, &integers)
        });
        // Launched, the problem has the grid's dimensions: a 2-D block over
        // a 1-D grid (llm.c's LayerNorm, a warp per row in threadIdx.y)
        // still covers the rows of a 1-D problem. Not launched, the
        // dimensions the body indexes, threadIdx's too.
        let dimensions = match launch {
            Some(l) => shape(l, 0, scanned)
                .map_or(1, |s| trimmed(&s.values).len())
                .max(indexed.1),
            None => indexed.0.max(indexed.1),
        };
        // One of several instances the file launches is named by its
        // template arguments (`smem_stride<32>`: `smem_stride_32`).
        let name = match launch {
            Some(l) if per_instance => {
                variant_name(&format!("{}_{}", kernel.name, instance_suffix(&l.callee)))
            }
            _ => variant_name(&kernel.name),
        };
        let mut draft = Draft {
            name,
            per_instance,
            kernel,
            functions: &file.functions,
            parameters,
            launched,
            indexed,
            dimensions: dimensions.clamp(1, 3),
            sides,
            around,
            compiled_types: Vec::new(),
            cast_types,
            compiled_out: false,
            compiled_entry: match &kernel.template {
                None => Some(kernel.name.clone()),
                Some(_) if !entry.comment.contains("fill in") => {
                    toml::from_str::<toml::Table>(&format!("entry = {}", entry.value))
                        .ok()
                        .and_then(|t| t.get("entry")?.as_str().map(str::to_string))
                }
                Some(_) => None,
            },
            entry,
            element_type,
            ceiling: false,
            scoped,
        };
        draft.dimensions = draft
            .dimensions
            .max(draft.allocated_dimensions(&draft.scoped))
            .clamp(1, 3);
        draft
    }

    /// The types of its parameters that its text does not say (`floatX*`
    /// of an alias defined in a header under `#if`), as written; none for
    /// a template whose instance is left to fill in (no symbol to read
    /// them from).
    fn unread_types(&self) -> Vec<String> {
        if self.compiled_entry.is_none() {
            return Vec::new();
        }
        let mut types: Vec<String> = self
            .parameters
            .iter()
            .flatten()
            .filter(|p| matches!(p.takes, Takes::Unknown | Takes::Pointer(None)))
            .map(|p| written_type(p).to_string())
            .collect();
        types.dedup();
        types
    }

    /// Takes the types of `compiled` (its symbol's parameters) for the
    /// parameters whose types its text does not say, keeping their names.
    fn take_compiled_types(&mut self, compiled: Vec<Parameter>) {
        let Some(parameters) = &mut self.parameters else {
            return;
        };
        if parameters.len() != compiled.len() {
            return;
        }
        for (parameter, compiled) in parameters.iter_mut().zip(compiled) {
            if matches!(parameter.takes, Takes::Unknown | Takes::Pointer(None))
                && compiled.element().is_some()
            {
                self.compiled_types.push((
                    written_type(parameter).to_string(),
                    compiled.written.clone(),
                ));
                parameter.resolved = compiled.resolved;
                parameter.takes = compiled.takes;
            }
        }
        self.compiled_types.dedup();
    }

    /// Takes the aliases `learned` from the compiler for those its scan
    /// does not resolve, and the dimensions its allocations then show.
    fn take_aliases(&mut self, learned: &[(String, String)]) {
        for (name, target) in learned {
            if !self.scoped.aliases.iter().any(|(known, _)| known == name) {
                self.scoped.aliases.push((name.clone(), target.clone()));
            }
        }
        self.dimensions = self
            .dimensions
            .max(self.allocated_dimensions(&self.scoped))
            .clamp(1, 3);
    }

    /// Its `[[variant]]` table in a suite of `problem`'s size.
    fn variant(
        &self,
        relative: &Path,
        includes: &str,
        problem: &Problem,
        baseline: &Draft,
    ) -> String {
        let scanned = &self.scoped;
        let mut text = format!(
            "\n[[variant]]\nname = {}\nsource = {}\n",
            quoted(&self.name),
            quoted(&relative.display().to_string()),
        );
        let looped = !self.around.loops.is_empty();
        let offsets = match looped {
            true => Vec::new(),
            false => self.offsets(scanned, problem),
        };
        let offset = offsets.iter().any(Option::is_some);
        if !looped && !offset {
            text.push_str(&self.entry.line());
        }
        if self.ceiling {
            text.push_str("role = \"ceiling\"  # its name says copy: the bandwidth the other kernels could reach, not a step of the ladder\nverify = \"none\"  # a copy's output is not the others' answer\n");
        } else if !std::ptr::eq(self, baseline) {
            let verify = self.verify(baseline);
            if verify.is_empty() {
                text.push_str(&self.tolerance(baseline));
            }
            text.push_str(&verify);
        }
        text.push_str(includes);
        let (settable, _) = self.sizes_compiled_in(problem);
        if !settable.is_empty() {
            let defines: Vec<String> = settable
                .iter()
                .map(|name| format!("{name} = \"N\""))
                .collect();
            let _ = writeln!(
                text,
                "defines = {{ {} }}  # the kernel reads the file's {}, which an #ifndef lets -D set: each size compiles it with N",
                defines.join(", "),
                settable.join(", ")
            );
        }
        if self.compiled_out {
            text.push_str("# fill in: the compiled file holds no such kernel: an #if or #ifdef around it is off as the file is compiled; delete this variant, or define what it needs (`defines`, `compile_options`)\n");
        }
        if !self.cast_types.is_empty() {
            let types: Vec<String> = self
                .cast_types
                .iter()
                .map(|(_, written, cast)| format!("`{written}` is used as `{cast}`"))
                .collect();
            let _ = writeln!(
                text,
                "# types read from the casts the kernel reads its untyped pointers through: {}",
                types.join(", ")
            );
        }
        if !self.compiled_types.is_empty() {
            let types: Vec<String> = self
                .compiled_types
                .iter()
                .map(|(written, compiled)| format!("`{written}` is `{compiled}`"))
                .collect();
            let _ = writeln!(
                text,
                "# types read from the compiled kernel, as the file does not say them: {}",
                types.join(", ")
            );
        }
        text.push_str(&match (looped, offset) {
            (false, false) => self.one_launch(scanned, problem),
            _ => self.sequence(scanned, problem, &offsets),
        });
        text
    }

    /// By position, the offset (in elements, over N) of each buffer its
    /// launch passes from an element on (`d_in + RADIUS`): none for a
    /// buffer passed whole, or one whose offset gpuprof cannot read.
    fn offsets(&self, scanned: &Kernels, problem: &Problem) -> Vec<Option<String>> {
        let (Some(launch), Some(parameters)) = (self.launch(), &self.parameters) else {
            return Vec::new();
        };
        if matches!(self.launched, Launched::Offered(_)) {
            return Vec::new();
        }
        let mapped = self.taken_as_n(launch, scanned, problem);
        let reader = Reader {
            mapped: &mapped,
            scanned,
        };
        parameters
            .iter()
            .zip(&launch.arguments)
            .map(|(parameter, argument)| {
                let Takes::Pointer(_) = parameter.takes else {
                    return None;
                };
                let (_, offset) = offset_pointer(uncast(argument))?;
                let expr = reader.expr(offset, &[], &mut Vec::new())?;
                let at_n = expr.value(problem.n as f64)?;
                (at_n >= 1.0 && at_n.fract() == 0.0).then(|| expr.toml())
            })
            .collect()
    }

    /// Its geometry and `args` for one launch, after a note on each loop
    /// around the launch (none changes it).
    fn one_launch(&self, scanned: &Kernels, problem: &Problem) -> String {
        let mut text = self.around.notes.concat();
        text.push_str(&self.launched_again(scanned));
        for setting in self.geometry(scanned, problem, &Turn::once(problem.n as f64)) {
            text.push_str(&setting.line());
        }
        text.push_str("args = [\n");
        let passed = self.passed(scanned, problem);
        match &self.parameters {
            Some(parameters) => {
                for (position, parameter) in parameters.iter().enumerate() {
                    text.push_str(&self.entry_for(position, parameter, &passed, problem, scanned));
                }
            }
            None => text.push_str(PACK),
        }
        text.push_str(&self.module_arrays(scanned));
        text.push_str("]\n");
        text
    }

    /// A note on the file's other launches of this kernel that differ from
    /// the one drafted (`sumReduction<<<1, TB_SIZE>>>(d_v_r, d_v_r)`, the
    /// second pass of a reduction): they are not drafted.
    fn launched_again(&self, scanned: &Kernels) -> String {
        let Some(drafted) = self.launch() else {
            return String::new();
        };
        let (mut again, mut instead): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
        for launch in scanned.launches.iter().filter(|l| {
            l.at != drafted.at
                && kernels::entry_base(&l.callee) == kernels::entry_base(&drafted.callee)
        }) {
            let shown = format!(
                "{}<<<{}>>>({})",
                launch.callee,
                launch.config.join(", "),
                launch.arguments.join(", ")
            );
            // Another instance, which the program chooses instead of this
            // one when it runs (one variant each otherwise), or this one
            // launched again otherwise.
            let list = match launch.callee == drafted.callee {
                true if launch.config != drafted.config
                    || launch.arguments != drafted.arguments =>
                {
                    &mut again
                }
                false if !self.per_instance => &mut instead,
                _ => continue,
            };
            if !list.contains(&shown) {
                list.push(shown);
            }
        }
        let mut notes = String::new();
        if !instead.is_empty() {
            let _ = writeln!(
                notes,
                "# the file also launches {}: the instance the program chooses when it runs; this draft takes the first, and another is a variant of its own (a copy of this one with its entry, block and grid)",
                instead.join(", ")
            );
        }
        if !again.is_empty() {
            let _ = writeln!(
                notes,
                "# the file also launches {}: only its first launch is drafted; launches run one after another are a `sequence` of steps",
                again.join(", ")
            );
        }
        notes
    }

    /// A sequence of one step, which the loops around its launch repeat:
    /// the variant's `args` hold its buffers, the step its entry,
    /// geometry and arguments (the buffers by name, a scalar the file
    /// passes a loop variable as that variable, the `if`s inside the loops
    /// that hold the launch its `when`); the comments that cannot stand
    /// beside a setting of the step's one line stand above it. A launch
    /// outside loops is such a step, once, where it passes a buffer from
    /// an element on (`stencil_1d<<<…>>>(d_in + RADIUS, d_out + RADIUS)`,
    /// whose kernel reads `in[i - RADIUS]`): by position, `offsets` says
    /// each buffer's, and the step passes it from there.
    fn sequence(&self, scanned: &Kernels, problem: &Problem, offsets: &[Option<String>]) -> String {
        let mapped = self
            .launch()
            .map(|launch| self.taken_as_n(launch, scanned, problem))
            .unwrap_or_default();
        let reader = Reader {
            mapped: &mapped,
            scanned,
        };
        let looped = !self.around.loops.is_empty();
        let repeat = loops::repeat(&self.around.loops, &reader, problem.n as f64);
        let (buffers, arguments) =
            self.step_arguments(scanned, problem, &reader, &repeat.turn, offsets);
        let geometry = self.geometry(scanned, problem, &repeat.turn);
        let mut text = format!("args = [\n{buffers}{}]\n", self.module_arrays(scanned));
        text.push_str(&self.around.notes.concat());
        if !looped {
            text.push_str(&self.launched_again(scanned));
            text.push_str("# the launch passes a buffer from an element on: a sequence of one step gives the offset\n");
        }
        let settings = std::iter::once(&self.entry).chain(&geometry);
        text.extend(settings.filter_map(Setting::note));
        text.push_str(&repeat.notes.concat());
        let geometry: Vec<String> = geometry.iter().map(Setting::inline).collect();
        let indent = match looped {
            true => {
                let when = loops::when(&self.around.branches, &reader, &repeat.turn.variables);
                text.push_str(&when.notes.concat());
                let when = when
                    .value
                    .map_or(String::new(), |value| format!(", when = {value}"));
                let _ = write!(
                    text,
                    "sequence = [\n  {{ {}{when}, repeat = [\n",
                    self.entry.inline()
                );
                for line in &repeat.lines {
                    let _ = writeln!(text, "      {line}");
                }
                let _ = writeln!(text, "    ], {}, args = [", geometry.join(", "));
                "    "
            }
            false => {
                let _ = writeln!(
                    text,
                    "sequence = [\n  {{ {}, {}, args = [",
                    self.entry.inline(),
                    geometry.join(", ")
                );
                "  "
            }
        };
        for line in arguments.lines() {
            let _ = writeln!(text, "{indent}{line}");
        }
        let _ = write!(text, "{indent}] }},\n]\n");
        text
    }

    /// The `args` of a sequence's step: the variant's (its buffers) and
    /// the step's, each as lines, a buffer from its `offsets` entry where
    /// it has one.
    fn step_arguments(
        &self,
        scanned: &Kernels,
        problem: &Problem,
        reader: &Reader,
        turn: &Turn,
        offsets: &[Option<String>],
    ) -> (String, String) {
        let Some(parameters) = &self.parameters else {
            return (String::new(), PACK.to_string());
        };
        let passed = self.passed(scanned, problem);
        let arguments = self.launch().map_or(&[][..], |l| &l.arguments[..]);
        let (mut buffers, mut step) = (String::new(), String::new());
        for (position, parameter) in parameters.iter().enumerate() {
            let name = parameter
                .name()
                .unwrap_or_else(|| format!("arg{}", position + 1));
            let entry = self.entry_for(position, parameter, &passed, problem, scanned);
            if buffer_of(parameter, self.uses(parameter), &name).is_some() {
                buffers.push_str(&entry);
                let _ = match (
                    offsets.get(position).cloned().flatten(),
                    arguments.get(position),
                ) {
                    (Some(offset), Some(argument)) => writeln!(
                        step,
                        "  {{ name = {}, offset = {offset} }},  # the file passes {}",
                        quoted(&name),
                        argument.trim()
                    ),
                    _ => writeln!(step, "  {{ name = {} }},", quoted(&name)),
                };
                continue;
            }
            let looped = arguments
                .get(position)
                .and_then(|argument| looped_scalar(&name, parameter, argument, reader, turn));
            step.push_str(&looped.unwrap_or(entry));
        }
        (buffers, step)
    }

    /// The `args` entry of the parameter at `position` as one launch
    /// passes it: a buffer, or a scalar of the value drafted for it.
    fn entry_for(
        &self,
        position: usize,
        parameter: &Parameter,
        passed: &[Option<Passed>],
        problem: &Problem,
        scanned: &Kernels,
    ) -> String {
        let uses = self.uses(parameter);
        let count = self
            .allocated_count(position, parameter, scanned, problem)
            .unwrap_or_else(|| match lanes_of(parameter) {
                1 => Count {
                    toml: quoted(&problem.bound),
                    comment: "fill in: its element count".to_string(),
                    summed: false,
                    zeroed: false,
                },
                lanes => Count {
                    toml: quoted(&format!("{lanes}*{}", problem.bound)),
                    comment: format!(
                        "fill in: its element count, {lanes} to each `{}`",
                        self.cast_types
                            .iter()
                            .find(|(name, ..)| Some(name) == parameter.name().as_ref())
                            .map_or(written_type(parameter), |(_, _, cast)| cast.as_str())
                            .trim_end_matches(['*', ' '])
                    ),
                    summed: false,
                    zeroed: false,
                },
            });
        let count = self
            .per_block_count(parameter, scanned, problem)
            .unwrap_or(count);
        // Bins a kernel only adds to (`atomicAdd(&hist[bin], 1)`) start
        // from zero, as the program's own do; random bins would hide
        // nothing but read as a wrong histogram.
        let count = match !count.zeroed
            && self.kernel.body.as_deref().is_some_and(|body| {
                parameter
                    .name()
                    .is_some_and(|name| kernels::only_added_to(body, &name))
            }) {
            true => Count {
                comment: format!(
                    "{}; the kernel only adds to it with atomics: filled with zeros, then compared",
                    count.comment
                ),
                zeroed: true,
                ..count
            },
            false => count,
        };
        // Values the kernel indexes with (a histogram's characters, a
        // sparse matrix's column indices) must keep the index inside its
        // array: random contents need not. (One the kernel writes too
        // may index with what it wrote there.)
        let indexing = uses
            .filter(|uses| uses.read && !uses.written && !uses.escapes)
            .and_then(|_| kernels::indexes_with(self.kernel.body.as_deref()?, &parameter.name()?));
        // Drawn as the file draws them (`h[i] = 'a' + rand() % 26;` copied
        // into it), where the type holds that range.
        let drawn = match (uses, parameter.element()) {
            (Some(uses), Some(element)) if uses.read && !element.is_float() => self
                .passed_variable(position, scanned)
                .and_then(|variable| {
                    scanned
                        .random_fills
                        .iter()
                        .rev()
                        .find(|fill| fill.device == variable)
                })
                .filter(|fill| {
                    crate::config::fits(element, fill.low as f64)
                        && crate::config::fits(element, (fill.high - 1) as f64)
                }),
            _ => None,
        };
        let count = match (indexing, parameter.element(), drawn) {
            (Some(subscript), _, Some(fill)) => Count {
                comment: format!(
                    "the kernel indexes `{subscript}` with its values: drawn as the file draws them, {}; {}",
                    fill.written,
                    count.comment.trim_start_matches("fill in: ")
                ),
                ..count
            },
            (None, _, Some(fill)) => Count {
                comment: format!(
                    "{}; drawn as the file draws them, {}",
                    count.comment, fill.written
                ),
                ..count
            },
            (Some(subscript), Some(element), None) => Count {
                comment: format!(
                    "fill in: the kernel indexes `{subscript}` with values it reads from `{}`, and gpuprof fills it with {} at random: give the range the file's values lie in, range = [low, high]; {}",
                    parameter.name().unwrap_or_default(),
                    match element.is_float() {
                        true => "-1 to 1",
                        false => "0 to 99",
                    },
                    count.comment.trim_start_matches("fill in: ")
                ),
                ..count
            },
            _ => count,
        };
        let value = self.scalar_value(problem, &parameter.name().unwrap_or_default());
        let entry = argument(position, parameter, uses, &count, value);
        let entry = match self.reduced_in_place(parameter) {
            Some(result) => entry.replacen("output = true, ", "", 1).replacen(
                " (the kernel reads and writes it: filled, then compared)",
                &format!(
                    " (the kernel sums in it in place, so what it leaves there depends on the order it sums in: filled, not compared; its result, `{result}`, is)"
                ),
                1,
            ),
            None => entry,
        };
        let entry = match drawn {
            Some(fill) => entry.replacen(
                "fill = \"random\" }",
                &format!(
                    "fill = \"random\", range = [{}, {}] }}",
                    fill.low, fill.high
                ),
                1,
            ),
            None => entry,
        };
        if let Some(passed) = passed.get(position).cloned().flatten() {
            return passed.applied(&entry, value);
        }
        // A size the launch passes (`vadd<<<…>>>(…, DSIZE)`): the name the
        // suite sets to N, as its grid says.
        let taken = self.launch().and_then(|launch| {
            let written = uncast(launch.arguments.get(position)?).trim();
            let mapped = self.taken_as_n(launch, scanned, problem);
            let name = parameter.name().unwrap_or_default();
            let passed_as = |(variable, passed, _): &&(String, String, &str)| {
                variable == written && *passed == name
            };
            let same_variable = |(variable, ..): &&(String, String, &str)| variable == written;
            mapped
                .iter()
                .find(passed_as)
                .or_else(|| mapped.iter().find(same_variable))
                .map(|(.., over_n)| (written, over_n.to_string()))
        });
        match taken {
            // A side of its own keeps its proportion to N ([`sides_apart`]).
            Some((written, over_n)) if holds_a_count(parameter) && over_n != value => entry
                .replace(
                    &format!("value = \"{value}\""),
                    &format!("value = \"{over_n}\""),
                )
                .replace(
                    "# fill in: its value\n",
                    &format!("# fill in: the file passes {written}, taken as {over_n}\n"),
                ),
            Some((written, _)) if holds_a_count(parameter) => entry.replace(
                "# fill in: its value\n",
                &format!("# fill in: the file passes {written}, taken as {value}\n"),
            ),
            _ => entry,
        }
    }

    /// The output that holds the result where the kernel sums in the buffer
    /// `parameter` in place ([`kernels::reduces_in_place`]) and writes
    /// partial results to another (`g_odata[blockIdx.x] = idata[0];`):
    /// the buffer is scratch, the partial results the answer.
    fn reduced_in_place(&self, parameter: &Parameter) -> Option<String> {
        let name = parameter.name()?;
        let uses = self.uses(parameter)?;
        let body = self.kernel.body.as_deref()?;
        if !(uses.read && uses.written && kernels::reduces_in_place(body, &name)) {
            return None;
        }
        self.pointer_names()
            .into_iter()
            .filter(|other| *other != name)
            .find(|other| kernels::partial_output(body, other).is_some())
    }

    /// The count of an output the kernel writes one element of per block
    /// (`d_out[blockIdx.x] = sdata[0];`, a reduction's partial sums): the
    /// blocks of its one-dimensional grid, compared by their sum, so that a
    /// step that gives each block more elements (fewer, larger partials)
    /// is still compared with the baseline. None for a repeated launch,
    /// whose grid changes from turn to turn.
    fn per_block_count(
        &self,
        parameter: &Parameter,
        scanned: &Kernels,
        problem: &Problem,
    ) -> Option<Count> {
        let name = parameter.name()?;
        let written = self.uses(parameter).is_some_and(|uses| uses.written);
        let body = self.kernel.body.as_deref()?;
        if !written || !self.around.loops.is_empty() {
            return None;
        }
        let (partial, accumulates) = kernels::partial_output(body, &name)?;
        // A block per row (`y[blockIdx.x] = sum` of `A[blockIdx.x * cols
        // + c]`) writes the row's whole result: compared element by element.
        let integers = parameter_names(&self.parameters, holds_a_count);
        if partial == kernels::Partial::PerBlock && kernels::block_reads_a_row(body, &integers) {
            return None;
        }
        if partial == kernels::Partial::One {
            return Some(Count {
                toml: "1".to_string(),
                comment: format!(
                    "one result for the whole grid (only {name}'s first element is written): compared by its sum{}",
                    match accumulates {
                        true => ", added to from zero",
                        false => "",
                    }
                ),
                summed: true,
                zeroed: accumulates,
            });
        }
        let grid = self
            .geometry(scanned, problem, &Turn::once(problem.n as f64))
            .into_iter()
            .find(|setting| setting.key == "grid")?;
        let table: toml::Table = toml::from_str(&format!("grid = {}", grid.value)).ok()?;
        let [blocks] = table.get("grid")?.as_array()?.as_slice() else {
            return None;
        };
        Some(Count {
            toml: blocks.to_string(),
            comment: format!(
                "one partial result a block ({name}[blockIdx.x]): as many as the grid's blocks, compared by their sum{}",
                match accumulates {
                    true => ", each added to from zero",
                    false => "",
                }
            ),
            summed: true,
            zeroed: accumulates,
        })
    }

    /// The element count of the buffer the launch passes as the pointer
    /// `parameter`, from the file's allocation of it (through the wrappers
    /// that hand it on): `cudaMalloc(&d_in, n * sizeof(float))` is `N` when
    /// `n` is taken as N. Where the suite's size is the file's own, only
    /// when the count there is what the file allocates, so that a count
    /// over names the suite does not vary is never scaled wrongly; where
    /// the size is gpuprof's guess (the file reads it from `argv`), a guess
    /// too, marked.
    fn allocated_count(
        &self,
        position: usize,
        parameter: &Parameter,
        scanned: &Kernels,
        problem: &Problem,
    ) -> Option<Count> {
        let launch = self.launch()?;
        let allocated = self.allocation(position, parameter, scanned)?;
        let mapped = self.taken_as_n(launch, scanned, problem);
        let mut used = Vec::new();
        let drafted = translate(&allocated.count, &mapped, &[], scanned, &mut used, 0)
            .and_then(|t| Expr::parse(&t))
            .map(Expr::simplified)?;
        let at_n = drafted.value(problem.n as f64)?;
        if at_n < 1.0 || at_n.fract() != 0.0 {
            return None;
        }
        let said = format!(
            "the file allocates {} for `{}`",
            allocated.bytes, allocated.variable
        );
        if problem.names.is_empty() {
            let names: Vec<&str> = used.iter().map(|(variable, _)| variable.as_str()).collect();
            // A count over none of them is the file's own constant
            // (`#define N (33 * 1024)`), the same at every size: no guess.
            let comment = match names.is_empty() {
                true => said,
                false => format!("fill in: {said}, {} taken as N", names.join(", ")),
            };
            return Some(Count {
                toml: drafted.toml(),
                comment,
                summed: false,
                zeroed: false,
            });
        }
        let at_the_files = translate(&allocated.count, &[], &[], scanned, &mut Vec::new(), 0)
            .and_then(|t| Expr::parse(&t))
            .and_then(|e| e.value(0.0))?;
        (at_n == at_the_files).then(|| Count {
            toml: drafted.toml(),
            comment: said,
            summed: false,
            zeroed: false,
        })
    }

    /// The host variable behind the pointer the launch passes at
    /// `position`, followed through the wrappers that hand it on and past
    /// a cast or an offset (`(float *)d_in + 4`: `d_in`). None for a
    /// launch offered as a guess.
    fn passed_variable(&self, position: usize, scanned: &Kernels) -> Option<String> {
        let launch = self.launch()?;
        if matches!(self.launched, Launched::Offered(_)) {
            return None;
        }
        let argument = uncast(launch.arguments.get(position)?);
        let base = offset_pointer(argument).map_or(argument, |(base, _)| base);
        let mut variable = base.to_string();
        for _ in 0..4 {
            match scanned.passed_pointers.iter().find(|(p, _)| *p == variable) {
                Some((_, passed)) => variable = passed.trim().to_string(),
                None => break,
            }
        }
        Some(variable)
    }

    /// The file's allocation of the buffer the launch passes as the
    /// pointer `parameter`: its bytes as written and its element count
    /// (the bytes without the `sizeof` of the element), followed through
    /// the wrappers that hand the pointer on and a bytes variable
    /// (`mem_size` of `size_t mem_size = sizeof(float) * n;`). None for a
    /// launch offered as a guess.
    fn allocation(
        &self,
        position: usize,
        parameter: &Parameter,
        scanned: &Kernels,
    ) -> Option<Allocation> {
        let Takes::Pointer(_) = parameter.takes else {
            return None;
        };
        let variable = self.passed_variable(position, scanned)?;
        // A vector's storage (`thrust::raw_pointer_cast(d.data())`): the
        // count it was declared with.
        if let Some(vector) = vector_storage(&variable)
            && let Some((_, count)) = scanned.vectors.iter().rev().find(|(v, _)| v == vector)
        {
            return Some(Allocation {
                count: count.clone(),
                bytes: format!("{count} elements"),
                variable: vector.to_string(),
            });
        }
        let (_, bytes) = scanned
            .device_allocations
            .iter()
            .rev()
            .find(|(name, _)| *name == variable)?;
        // A bytes variable (`mem_size` of `size_t mem_size = sizeof(float)
        // * n;`) is followed; a count the file allocates as bytes
        // (`cudaMalloc(&d_input, N)` of a `char *`) is not, so that it stays
        // the name the suite sets to N.
        let mut bytes = bytes.as_str();
        for _ in 0..2 {
            match initializer(bytes, scanned).filter(|initial| {
                is_identifier(bytes) && (initial.contains("sizeof") || is_identifier(initial))
            }) {
                Some(initial) => bytes = initial,
                None => break,
            }
        }
        // Allocated as `float3`s (or structs of three floats), three f32
        // elements to each; allocated as floats and passed as `(float4 *)`,
        // one to each.
        let element_bytes = parameter.element()?.size_bytes();
        let factors = top_level_factors(bytes);
        let sized = factors.iter().any(|f| f.trim().starts_with("sizeof"));
        if !sized && element_bytes == 1 {
            // Bytes allocated for bytes (`cudaMalloc(&d_out, width *
            // height)` of an `unsigned char *`, passed as one or as
            // `(const uchar4 *)d`): the count itself.
            return Some(Allocation {
                count: bytes.to_string(),
                bytes: bytes.to_string(),
                variable,
            });
        }
        let (sizeof_at, lanes) = factors.iter().enumerate().find_map(|(at, f)| {
            let f = f.trim();
            // `sizeof(data[0])`, `sizeof(*d_a)`: the size of what the
            // pointer points to, as the host code declares it.
            let f = match sizeof_pointee(f) {
                Some(pointer) => {
                    let (_, pointee) = scanned.host_pointers.iter().find(|(p, _)| p == pointer)?;
                    format!("sizeof({pointee})")
                }
                None => f.to_string(),
            };
            let bytes: usize = f
                .starts_with("sizeof")
                .then(|| translate(&f, &[], &[], scanned, &mut Vec::new(), 0))??
                .parse()
                .ok()?;
            [1, lanes_of(parameter)]
                .into_iter()
                .find(|lanes| bytes == element_bytes * lanes)
                .map(|lanes| (at, lanes))
        })?;
        let mut count: Vec<String> = factors
            .iter()
            .enumerate()
            .filter(|(at, _)| *at != sizeof_at)
            .map(|(_, f)| f.trim().to_string())
            .collect();
        if lanes > 1 {
            count.insert(0, lanes.to_string());
        }
        Some(Allocation {
            count: match count.is_empty() {
                true => "1".to_string(),
                false => count.join(" * "),
            },
            bytes: bytes.to_string(),
            variable,
        })
    }

    /// The most dimensions of N among the counts the file allocates for
    /// the buffers its launch passes, with the launch's size scalars
    /// taken as N: a 1-D grid over the rows of an `M * N` matrix
    /// (`sgemv<<<M / 4, …>>>(A, x, y, M, N)`, A allocated `sizeof(float)
    /// * M * N`) is a problem of N×N elements.
    fn allocated_dimensions(&self, scanned: &Kernels) -> usize {
        let (Some(launch), Some(parameters)) = (self.launch(), &self.parameters) else {
            return 1;
        };
        let mapped: Vec<(String, String, &str)> = self
            .mapped(launch, scanned)
            .into_iter()
            .map(|(variable, parameter)| (variable, parameter, "N"))
            .collect();
        let degree = |position: usize, parameter: &Parameter| {
            let allocated = self.allocation(position, parameter, scanned)?;
            let count = translate(&allocated.count, &mapped, &[], scanned, &mut Vec::new(), 0)
                .and_then(|t| Expr::parse(&t))?;
            let (small, large) = (count.value(64.0)?, count.value(128.0)?);
            (small >= 1.0).then(|| (large / small).log2().round() as usize)
        };
        parameters
            .iter()
            .enumerate()
            .filter_map(|(position, parameter)| degree(position, parameter))
            .max()
            .unwrap_or(1)
    }

    /// A `symbol` buffer for each `__constant__` or `__device__` array of
    /// the file the kernel reads (a convolution's filter, which the host
    /// fills with cudaMemcpyToSymbol): without one it would run on zeros,
    /// and every variant would agree on it.
    fn module_arrays(&self, scanned: &Kernels) -> String {
        let Some(body) = self.kernel.body.as_deref() else {
            return String::new();
        };
        let mut lines = String::new();
        for variable in &scanned.variables {
            let Some(length) = &variable.length else {
                continue;
            };
            let named = regex::Regex::new(&format!(r"\b{}\b", regex::escape(&variable.name)))
                .is_ok_and(|word| word.is_match(body));
            let use_ = kernels::pointer_use(body, &variable.name, &scanned.functions);
            if !named || use_.written {
                continue;
            }
            let element = signature::parameters(
                &format!("{} *x", variable.element),
                None,
                &[],
                &scanned.aliases,
            )
            .and_then(|p| p.first().and_then(Parameter::element));
            let Some(element) = element else {
                continue;
            };
            let count = variable.elements(&scanned.integers);
            let declared = format!("{} {}[{length}]", variable.element, variable.name);
            let _ = writeln!(
                lines,
                "  {{ name = {name}, buffer = \"{element}\", count = {count}, fill = \"random\", symbol = {name} }},  # {fill}the kernel reads the module's {declared}: gpuprof fills it before each launch",
                name = quoted(&variable.name),
                element = element.name(),
                count = count.unwrap_or(1),
                fill = match count {
                    Some(_) => "",
                    None => "fill in: its length; ",
                },
            );
        }
        lines
    }

    /// How the body uses the pointer `parameter`, where it can be read.
    fn uses(&self, parameter: &Parameter) -> Option<PointerUse> {
        let name = parameter.name()?;
        Some(kernels::pointer_use(
            self.kernel.body.as_deref()?,
            &name,
            self.functions,
        ))
    }

    /// The buffers it compares after a run: name and element type.
    fn outputs(&self) -> Vec<(String, &'static str)> {
        self.parameters
            .iter()
            .flatten()
            .filter_map(|parameter| {
                let name = parameter.name()?;
                let (element, role, _) = buffer_of(parameter, self.uses(parameter), &name)?;
                (role != INPUT).then_some((name, element))
            })
            .collect()
    }

    /// A `verify = "none"` line when its outputs cannot be compared with
    /// the baseline's (`reference`): none, or named unlike them.
    fn verify(&self, reference: &Draft) -> String {
        let theirs = reference.outputs();
        let ours = self.outputs();
        let names = |outputs: &[(String, &str)]| {
            outputs
                .iter()
                .map(|(name, _)| name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if ours.is_empty() {
            return "verify = \"none\"  # fill in: gpuprof found no buffer the kernel writes; mark those with output = true to compare them with the baseline's\n".to_string();
        }
        // Outputs pair by name; two float types compare (f16 against f32),
        // other types must match.
        let float = |element: &str| {
            ElementType::ALL
                .iter()
                .any(|e| e.name() == element && e.is_float())
        };
        let unnamed = ours
            .iter()
            .any(|(name, _)| !theirs.iter().any(|(other, _)| other == name));
        let mistyped: Vec<String> = ours
            .iter()
            .filter_map(|(name, element)| {
                let (_, other) = theirs.iter().find(|(other, _)| other == name)?;
                (other != element && !(float(element) && float(other)))
                    .then(|| format!("{name} is {element} here, {other} there"))
            })
            .collect();
        // A constant that only spaces the elements it reads (`in[i *
        // stride]`, passed 32) where the baseline reads one after another:
        // another output, not the baseline's computed another way.
        let spaced = self.spacing();
        let baseline_spaces = !reference.spacing().is_empty();
        if unnamed {
            format!(
                "verify = \"none\"  # fill in: its outputs ({}) are not named like the baseline's ({}): name them alike to compare them\n",
                names(&ours),
                match theirs.is_empty() {
                    true => "none".to_string(),
                    false => names(&theirs),
                }
            )
        } else if !mistyped.is_empty() {
            format!(
                "verify = \"none\"  # its outputs are not of the baseline's types ({}): only two float types compare\n",
                mistyped.join("; ")
            )
        } else if let Some((parameter, value)) = spaced.first().filter(|_| !baseline_spaces) {
            format!(
                "verify = \"none\"  # its `{parameter}` ({value}) spaces the elements it reads, which the baseline reads one after another: it computes another output, so it is timed and profiled but not compared\n"
            )
        } else {
            String::new()
        }
    }

    /// Its integer parameters that only space the elements it reads
    /// ([`kernels::only_strides_an_index`]) and that its launch passes a
    /// constant other than 1, with that constant.
    fn spacing(&self) -> Vec<(String, i64)> {
        let (Some(launch), Some(parameters), Some(body)) =
            (self.launch(), &self.parameters, &self.kernel.body)
        else {
            return Vec::new();
        };
        let pointers = self.pointer_names();
        launch
            .arguments
            .iter()
            .zip(parameters)
            .filter(|(_, parameter)| matches!(parameter.takes, Takes::Value(c) if !c.float))
            .filter_map(|(argument, parameter)| {
                let name = parameter.name()?;
                let value = constant_value(uncast(argument).trim(), &self.scoped)?;
                (value != 1 && kernels::only_strides_an_index(body, &name, &pointers))
                    .then_some((name, value))
            })
            .collect()
    }

    /// A `tolerance` line when it or the baseline sums floats (a loop's
    /// `+=`, `atomicAdd`, a warp's shuffles, in the kernel or a function
    /// it calls) and every output is f32 or f64: a sum taken in another
    /// order differs by rounding beyond the default tolerance (a reduction
    /// of 10^8 floats by 4e-5 relative, measured). f16 and bf16 outputs
    /// keep their own, looser default.
    fn tolerance(&self, baseline: &Draft) -> String {
        let (ours, theirs) = (self.outputs(), baseline.outputs());
        let wide = |outputs: &[(String, &str)]| {
            outputs
                .iter()
                .all(|(_, element)| matches!(*element, "f32" | "f64"))
        };
        let float_outputs = ours.iter().any(|(_, e)| e.starts_with('f'));
        if !(float_outputs && wide(&ours) && wide(&theirs)) || !(self.sums() || baseline.sums()) {
            return String::new();
        }
        "tolerance = { rel = 1e-4, abs = 1e-4 }  # the kernels sum floats: a sum taken in another order differs by rounding (float32 sums agree to about 1e-4 relative); tighten it where they sum alike\n".to_string()
    }

    /// Whether the kernel sums: a `+=` inside a loop, an `atomicAdd` or a
    /// warp shuffle, in its body or a function of the file it calls.
    fn sums(&self) -> bool {
        let Some(body) = self.kernel.body.as_deref() else {
            return false;
        };
        let word = |pattern: &str| regex::Regex::new(pattern).expect("a valid pattern");
        let called: Vec<&str> = self
            .functions
            .iter()
            .filter(|f| word(&format!(r"\b{}\s*[(<]", regex::escape(&f.name))).is_match(body))
            .map(|f| f.body.as_str())
            .collect();
        // A float variable or array the code declares and adds to in a
        // loop (`float sum = 0; for (…) sum += a[i] * b[i];`, `sdata[tid]
        // += sdata[tid + s]`), not an index stepped (`i += stride`).
        let float_local = word(r"\b(?:float|double)\s+([A-Za-z_]\w*)");
        std::iter::once(body).chain(called).any(|text| {
            let added_to = float_local.captures_iter(text).any(|local| {
                let name = regex::escape(&local[1]);
                word(&format!(r"\b{name}\s*(\[[^\]]*\]\s*)*\+=")).is_match(text)
            });
            word(r"\batomicAdd\s*\(|\b__shfl(_down|_xor|_up)?(_sync)?\s*\(").is_match(text)
                || (word(r"\b(for|while)\b").is_match(text) && added_to)
        })
    }

    /// The value of its integer scalar `parameter`: N, or for a kernel
    /// that indexes in 1-D in a suite of N×N elements, N*N (its length),
    /// unless the body takes it as one side of that length (`idx < M *
    /// N`: M and N are each N).
    fn scalar_value<'p>(&self, problem: &'p Problem, parameter: &str) -> &'p str {
        match self.dimensions == 1 && !self.sides.iter().any(|side| side == parameter) {
            true => &problem.elements,
            false => "N",
        }
    }

    /// The launch it is drafted from, if any.
    fn launch(&self) -> Option<&'a Launch> {
        match self.launched {
            Launched::Directly(l) | Launched::Through(l, _) | Launched::Offered(l) => Some(l),
            Launched::Not => None,
        }
    }

    /// The file's problem-size macros (of `problem.names`) its kernel
    /// reads, compiled into it: those an `#ifndef` lets a `-D` set, then
    /// those fixed at the file's value whatever the size.
    fn sizes_compiled_in<'p>(&self, problem: &'p Problem) -> (Vec<&'p str>, Vec<&'p str>) {
        let mut read = Vec::new();
        if let Some(body) = &self.kernel.body {
            names_through(body, &self.scoped, 4, &mut read);
        }
        let read: Vec<&str> = problem
            .names
            .iter()
            .map(String::as_str)
            .filter(|name| read.iter().any(|r| r == name))
            .collect();
        let settable = read
            .iter()
            .copied()
            .filter(|name| self.scoped.guarded_defines.iter().any(|g| g == name))
            .collect();
        let fixed = read
            .into_iter()
            .filter(|name| self.scoped.unguarded_defines.iter().any(|(u, _)| u == name))
            .collect();
        (settable, fixed)
    }

    /// The file's constants its launch reads as the problem size (through
    /// its grid and block, and the variables they use), with their values;
    /// and the variables it passes as the size whose initializers give one;
    /// where it reads none, the constants its buffers' allocations count
    /// (`N` of `cudaMalloc(&dev_a, N * sizeof(int))`).
    fn sizes(&self, scanned: &Kernels, block_like: &[String]) -> Vec<(String, i64)> {
        let Some(launch) = self.launch() else {
            return Vec::new();
        };
        let mut names = Vec::new();
        for k in 0..2 {
            for value in shape(launch, k, scanned).map_or_else(Vec::new, |s| s.values) {
                names_through(&value, scanned, 0, &mut names);
            }
        }
        let mut found: Vec<(String, i64)> = names
            .iter()
            .filter_map(|name| Some((name.clone(), size_define(name, scanned, block_like)?)))
            .collect();
        // The size the launch tells the kernel (`reduce<<<blocks,
        // 256>>>(d_A, d_sums, N)`) is the problem's: a name of its
        // geometry that holds another value is not (`blocks`, 640, which
        // also sizes the per-block partial results).
        let mapped = self.mapped(launch, scanned);
        let told: Vec<(String, i64)> = mapped
            .iter()
            .cloned()
            .filter_map(|(variable, _)| {
                let value = initialized_count(&variable, scanned)
                    .or_else(|| size_define(&variable, scanned, block_like))?;
                Some((variable, value))
            })
            .collect();
        if !told.is_empty() {
            found.retain(|(_, value)| told.iter().any(|(_, size)| size == value));
            // A constant the launch passes beside the size (a mask's
            // width: `conv<<<(LEN + 255) / 256, 256>>>(…, MASK_WIDTH,
            // LEN)`) is not the problem's: where the grid covers some of
            // what it tells, those are.
            let covered = told
                .iter()
                .filter(|(_, value)| found.iter().any(|(_, size)| size == value))
                .cloned()
                .collect::<Vec<_>>();
            found.extend(if covered.is_empty() { told } else { covered });
            return found;
        }

        // A launch that names no size (`add<<<128, 128>>>(dev_a, …)`, a
        // grid-stride loop) sizes its buffers with one: the file's
        // constant in their allocations (`N * sizeof(int)`). So does one
        // whose grid is a count of blocks alone (`<<<NUMBER_OF_BLOCKS,
        // THREADS>>>` over buffers of `VECTOR_SIZE = THREADS *
        // NUMBER_OF_BLOCKS`): the blocks are not the elements.
        let grid_counts: Vec<String> = shape(launch, 0, scanned)
            .map_or_else(Vec::new, |s| s.values)
            .into_iter()
            .map(|value| value.trim().to_string())
            .filter(|value| is_identifier(value))
            .collect();
        let counts_blocks =
            !found.is_empty() && found.iter().all(|(name, _)| grid_counts.contains(name));
        if found.is_empty() || counts_blocks {
            let mut allocated = Vec::new();
            for (position, parameter) in self.parameters.iter().flatten().enumerate() {
                if let Some(allocation) = self.allocation(position, parameter, scanned) {
                    names_through(&allocation.count, scanned, 0, &mut allocated);
                }
            }
            // A size the launch tells whose value the file learns as it
            // runs (`N = v_x.size()` of atoms read from a file) is the
            // problem's: a constant beside it in an allocation (`N * MN`,
            // the most neighbours an atom has) is not.
            if allocated
                .iter()
                .any(|name| mapped.iter().any(|(variable, _)| variable == name))
            {
                return found;
            }
            // Named in an allocation, each sizes one: its value is enough.
            let sized: Vec<(String, i64)> = allocated
                .iter()
                .filter(|name| !block_like.contains(name))
                // (`VECTOR_SIZE` is read through to the blocks it counts.)
                .filter(|name| !(counts_blocks && grid_counts.contains(name)))
                .filter_map(|name| {
                    let value = match scanned.integers.iter().rev().find(|(n, _)| n == name) {
                        Some((_, value)) => Some(*value),
                        None => initialized_count(name, scanned),
                    };
                    Some((name.clone(), value.filter(|v| *v >= 1)?))
                })
                .collect();
            if found.is_empty() || !sized.is_empty() {
                return sized;
            }
        }
        found
    }

    /// What the launch passes each integer scalar that the suite does not
    /// set to N: a variable the file computes (`max_elems_per_block = 2 *
    /// block_sz`), by position.
    fn passed(&self, scanned: &Kernels, problem: &Problem) -> Vec<Option<Passed>> {
        let (Some(launch), Some(parameters)) = (self.launch(), &self.parameters) else {
            return Vec::new();
        };
        if matches!(self.launched, Launched::Offered(_)) {
            return Vec::new();
        }
        let mapped = self.taken_as_n(launch, scanned, problem);
        parameters
            .iter()
            .zip(&launch.arguments)
            .map(|(parameter, argument)| {
                let integer = holds_a_count(parameter);
                // A variable with an initializer, or an expression written
                // in the launch itself (`1024`, `1024 * sizeof(float)`).
                // (A float variable, `alpha` of `float alpha = 1.0f`, is
                // its initializer too.)
                let float_initial = || {
                    scanned
                        .float_initializers
                        .iter()
                        .rfind(|(n, _)| n == argument)
                };
                let (initial, written) = match initializer(argument, scanned) {
                    Some(initial) => (initial, format!("{argument} = {initial}")),
                    None if !integer && let Some((_, initial)) = float_initial() => {
                        (initial.as_str(), format!("{argument} = {initial}"))
                    }
                    // (A constant, `MASK_WIDTH`, is its value.)
                    None if !is_identifier(argument)
                        || constant_value(argument, scanned).is_some() =>
                    {
                        (argument.as_str(), argument.clone())
                    }
                    None => return None,
                };
                if !integer {
                    // A float written in the launch (`2.0f`, `-0.5`): its value.
                    let float = matches!(parameter.takes, Takes::Value(c) if c.float);
                    return float_literal(initial)
                        .filter(|_| float)
                        .map(|value| Passed {
                            value: Some(value),
                            written,
                        });
                }
                if mapped.iter().any(|(v, ..)| v == argument) {
                    return None;
                }
                // A constant may be 0 (an offset, a padding); one that
                // grows with N must be a count at the drafted size.
                let whole = |v: f64, least: f64| v >= least && v.fract() == 0.0 && v < 1e12;
                let drafted = translate(initial, &mapped, &[], scanned, &mut Vec::new(), 1)
                    .and_then(|t| Expr::parse(&t))
                    .map(Expr::simplified)
                    .filter(|e| match (e.value(problem.n as f64), e.value(1.0)) {
                        (Some(at_n), Some(at_1)) if at_n == at_1 => whole(at_n, 0.0),
                        (Some(at_n), _) => whole(at_n, 1.0),
                        _ => false,
                    });
                Some(Passed {
                    value: drafted.map(|e| e.toml()),
                    written,
                })
            })
            .collect()
    }

    /// The host variables (and the file's problem-size constants) the
    /// suite sets to N in `launch`, with the parameter each is passed as
    /// and the value (`value`, N or N*N).
    fn taken_as_n<'p>(
        &self,
        launch: &Launch,
        scanned: &Kernels,
        problem: &'p Problem,
    ) -> Vec<(String, String, &'p str)> {
        let mut mapped: Vec<(String, String, &str)> = self
            .mapped(launch, scanned)
            .into_iter()
            .map(|(v, p)| {
                let value = self.scalar_value(problem, &p);
                (v, p, value)
            })
            .collect();
        // A constant whose value is none of the sizes (a mask's width of
        // 7 beside a length of 1 << 22) is passed as it is: the problem's
        // sizes, or where the suite's are not one, the launch's own.
        let own = self.sizes(scanned, &problem.block_like);
        let mut sizes: Vec<i64> = own.iter().map(|(_, value)| *value).collect();
        if !problem.names.is_empty() {
            sizes.extend(
                (1..=problem.dimensions as u32).filter_map(|power| problem.n.checked_pow(power)),
            );
        }
        if !sizes.is_empty() {
            mapped.retain(|(variable, ..)| {
                problem.names.contains(variable)
                    || own.iter().any(|(name, _)| name == variable)
                    || constant_value(variable, scanned).is_none_or(|value| sizes.contains(&value))
            });
        }
        // A constant the launches use as a block's size (`dim3
        // block_dim(Br)` with `const int Br = 32;`) is a tile's, passed as
        // it is, unless it is the problem's own.
        mapped.retain(|(variable, ..)| {
            problem.names.contains(variable)
                || !problem.block_like.contains(variable)
                || constant_value(variable, scanned).is_none()
        });
        if self.dimensions == problem.dimensions {
            for name in &problem.names {
                if !mapped.iter().any(|(v, ..)| v == name) {
                    mapped.push((name.clone(), name.clone(), "N"));
                }
            }
        }
        // A side of its own (`height = 1080` beside `width = 1920`, taken
        // as N) keeps its proportion to N.
        for (name, over_n) in &problem.apart {
            match mapped.iter_mut().find(|(v, ..)| v == name) {
                Some((_, _, value)) => *value = over_n,
                None if self.dimensions == problem.dimensions => {
                    mapped.push((name.clone(), name.clone(), over_n))
                }
                None => {}
            }
        }
        // A side the file works out from the size (`height = width - width
        // / 4` beside `width`) follows N through its initializer, not N
        // itself: rows and columns that differ stay apart.
        let roots: Vec<(String, String, &str)> = problem
            .names
            .iter()
            .map(|name| (name.clone(), name.clone(), "N"))
            .collect();
        mapped.retain(|(variable, ..)| {
            problem.names.contains(variable)
                || !follows_n_apart(variable, &roots, scanned, problem.n)
        });
        mapped
    }

    /// Its `block`, `grid` and `shared_bytes`, for a launch repeated over
    /// the loops of `turn` (none for one launch), their values checked at
    /// the loops' first turn.
    fn geometry(&self, scanned: &Kernels, problem: &Problem, turn: &Turn) -> Vec<Setting> {
        let (launch, how) = match &self.launched {
            Launched::Directly(l) => (Some(*l), String::new()),
            Launched::Through(l, pointer) => (
                Some(*l),
                format!(
                    "; {} is launched through the pointer `{pointer}`",
                    self.kernel.name
                ),
            ),
            Launched::Offered(l) => (
                Some(*l),
                format!(
                    "; the file launches a function pointer, `{}<<<{}>>>`, and does not say whether with this kernel",
                    l.callee,
                    l.config.join(", ")
                ),
            ),
            Launched::Not => (None, String::new()),
        };
        let guessed = matches!(self.launched, Launched::Offered(_));
        let mapped = launch
            .map(|l| self.taken_as_n(l, scanned, problem))
            .unwrap_or_default();
        let reader = Reader {
            mapped: &mapped,
            scanned,
        };
        // Where the launch tells the kernel its size (`reduce<<<blocks,
        // 256>>>(d_A, d_sums, N)`), another constant of its geometry is the
        // grid's own count, not a second problem size.
        let told = launch.is_some_and(|l| !self.mapped(l, scanned).is_empty());
        let resolve_shape = |k: usize| -> Option<(Vec<String>, String)> {
            let launch = launch?;
            let shape = shape(launch, k, scanned)?;
            let mut used = Vec::new();
            // A problem-size constant evaluated as itself, not as N: the
            // value stands beside sizes of another.
            let mut names = Vec::new();
            for v in &shape.values {
                names_through(v, scanned, 0, &mut names);
            }
            let evaluated: Vec<String> = names
                .iter()
                .filter(|name| !told && !mapped.iter().any(|(v, ..)| v == *name))
                .filter_map(|name| {
                    let size = size_define(name, scanned, &problem.block_like)?;
                    (size != problem.n).then(|| format!("{name} ({size})"))
                })
                .collect();
            let values: Option<Vec<(String, f64)>> = trimmed(&shape.values)
                .iter()
                .map(|v| {
                    let expr = reader.expr(v, &turn.variables, &mut used)?;
                    let value = expr.value_at(&turn.values)?;
                    (value >= 1.0 && value.fract() == 0.0 && value < 1e12)
                        .then(|| (expr.toml(), value))
                })
                .collect();
            let (values, numbers): (Vec<String>, Vec<f64>) = values?.into_iter().unzip();
            // A block past CUDA's limits at the suite's size (`dim3 tids(2
            // * r + 1, 2 * r + 1)` with `r` taken as N) is no block to
            // draft: it is left to fill in, with the launch quoted.
            let threads: f64 = numbers.iter().product();
            let over = numbers
                .iter()
                .zip(crate::config::BLOCK_LIMITS)
                .any(|(n, limit)| *n > f64::from(limit));
            if k == 1 && (threads > crate::config::MAX_BLOCK_THREADS as f64 || over) {
                return None;
            }
            let origin = match &shape.declared {
                Some(declared) => format!("the file's {declared}"),
                None => format!("the file's <<<{}>>>", launch.config.join(", ")),
            };
            let unlike = match evaluated.is_empty() {
                true => String::new(),
                false => format!(
                    "; {} {} the file's problem size, not the sizes' N = {}: write it over N",
                    evaluated.join(", "),
                    if evaluated.len() == 1 { "is" } else { "are" },
                    problem.n
                ),
            };
            let comment = match (
                used.is_empty() && !guessed && unlike.is_empty(),
                how.is_empty(),
            ) {
                (true, true) => String::new(),
                (true, false) => format!("  # from {origin}{how}"),
                (false, _) => format!(
                    "  # fill in: from {origin}{}{unlike}{how}",
                    reader.taken(&used)
                ),
            };
            Some((values, comment))
        };
        let launched = launch
            .map(|l| format!(" (the file launches <<<{}>>>)", l.config.join(", ")))
            .unwrap_or_default();
        let mut settings = Vec::new();
        let block = resolve_shape(1);
        let block_numbers: Vec<u32> = block
            .as_ref()
            .map(|(values, _)| values.iter().filter_map(|v| v.parse().ok()).collect())
            .unwrap_or_default();
        match &block {
            Some((values, comment)) => settings.push(Setting::new(
                "block",
                format!("[{}]", values.join(", ")),
                comment.clone(),
            )),
            None => {
                let dimensions = self.indexed.0;
                let chosen = launch.and_then(|l| {
                    let written = l.config.get(1)?.trim();
                    scanned
                        .chosen_at_run_time
                        .iter()
                        .find(|(name, _)| name == written)
                });
                let why = match (chosen, dimensions) {
                    (Some((name, function)), _) => format!(
                        " ({name} is chosen when the program runs, by {function}: write the size it picks on your GPU)"
                    ),
                    (None, 1) => String::new(),
                    (None, d) => format!(" (the kernel indexes threadIdx in {d}-D)"),
                };
                settings.push(Setting::new(
                    "block",
                    format!("[{}]", numbers(BLOCKS[dimensions - 1])),
                    format!("  # fill in: threads per block{why}{launched}"),
                ));
            }
        }
        match resolve_shape(0) {
            Some((values, comment)) => {
                let (values, comment) = match self.covering_grid(&values, &block_numbers, problem) {
                    Some(over_n) => (
                        over_n,
                        format!(
                            "  # fill in: the file's grid [{}] of blocks of [{}] covers its {} elements exactly: written over N",
                            values.join(", "),
                            numbers(&block_numbers),
                            self.extent_text(problem)
                        ),
                    ),
                    None => (values, comment),
                };
                settings.push(Setting::new(
                    "grid",
                    format!("[{}]", values.join(", ")),
                    comment,
                ))
            }
            None => {
                let dimensions = self.dimensions;
                let tile: Vec<u32> = match block_numbers.len() == dimensions {
                    true => block_numbers.clone(),
                    false => BLOCKS[dimensions - 1].to_vec(),
                };
                // A 1-D kernel covers all N×N elements of a 2-D suite.
                let covered = match dimensions {
                    1 => problem.elements.as_str(),
                    _ => "N",
                };
                // `(threadIdx.x + blockIdx.x * blockDim.x) * 4`: a thread
                // takes four elements, a block four blocks' worth.
                let per_thread = self
                    .kernel
                    .body
                    .as_deref()
                    .filter(|_| dimensions == 1)
                    .and_then(|body| elements_per_thread(body, scanned));
                let grid: Vec<String> = tile
                    .iter()
                    .map(|t| t * per_thread.as_ref().map_or(1, |(k, _)| *k))
                    .map(|t| format!("\"cdiv({covered}, {t})\""))
                    .collect();
                let each = per_thread.map_or(String::new(), |(k, written)| {
                    format!("; each thread's index is scaled by {k} (`{written}`)")
                });
                settings.push(Setting::new(
                    "grid",
                    format!("[{}]", grid.join(", ")),
                    format!("  # fill in: blocks per grid, an expression over N{each}{launched}"),
                ));
            }
        }
        if let Some(written) = launch
            .and_then(|l| l.config.get(2))
            .filter(|s| s.as_str() != "0")
        {
            let (shared, assumed) = self.sized_by_element(written, scanned);
            let shared = &shared;
            let mut used = Vec::new();
            let drafted = reader.expr(shared, &turn.variables, &mut used).filter(|e| {
                e.value_at(&turn.values)
                    .is_some_and(|v| v >= 0.0 && v.fract() == 0.0 && v < 1e12)
            });
            let (bytes, comment) = match drafted {
                Some(bytes) if !assumed.is_empty() => (
                    bytes.toml(),
                    format!("  # fill in: the file passes {written}{assumed}{how}"),
                ),
                Some(bytes) if used.is_empty() && !guessed => {
                    (bytes.toml(), format!("  # the file passes {shared}"))
                }
                Some(bytes) => {
                    let taken = reader.taken(&used);
                    (
                        bytes.toml(),
                        format!("  # fill in: the file passes {shared}{taken}{how}"),
                    )
                }
                // No bytes for a kernel that reads `extern __shared__`
                // memory would have it read past its end: one element a
                // thread of the block is the common size, to check.
                None => match self
                    .kernel
                    .body
                    .as_deref()
                    .and_then(|body| extern_shared_element(body, &scanned.aliases))
                    .filter(|_| !block_numbers.is_empty())
                {
                    Some((element, size)) => (
                        (block_numbers.iter().product::<u32>() as usize * size).to_string(),
                        format!(
                            "  # fill in: the file passes {shared}, which gpuprof cannot work out: drafted as one `{element}` of the kernel's extern __shared__ array a thread of the block"
                        ),
                    ),
                    None => (
                        "0".to_string(),
                        format!("  # fill in: the file passes {shared}"),
                    ),
                },
            };
            settings.push(Setting::new("shared_bytes", bytes, comment));
        }
        settings
    }

    /// A grid the file writes as numbers that covers the file's own
    /// problem size exactly with its blocks (`dim3 BLOCKS(4, 4)` of 4×4
    /// threads over 16×16 elements, `<<<4096, 256>>>` over 1,048,576): the
    /// same cover over N, so that it follows the sizes. None where the
    /// size is gpuprof's guess, a dimension does not cover exactly or is
    /// one block (a kernel that works in one block).
    fn covering_grid(
        &self,
        grid: &[String],
        block: &[u32],
        problem: &Problem,
    ) -> Option<Vec<String>> {
        let used = self.dimensions;
        if problem.names.is_empty() || grid.len() != block.len() || grid.len() < used {
            return None;
        }
        let numbers: Vec<u64> = grid.iter().map(|v| v.parse().ok()).collect::<Option<_>>()?;
        let n = u64::try_from(problem.n).ok()?;
        let (extent, written) = match used {
            1 => {
                let elements = Expr::parse(&problem.elements)?.value(problem.n as f64)?;
                (elements as u64, problem.elements.as_str())
            }
            _ => (n, "N"),
        };
        let covers = numbers
            .iter()
            .zip(block)
            .enumerate()
            .all(|(d, (&g, &b))| match d < used {
                true => g > 1 && g * u64::from(b) == extent,
                false => g == 1,
            });
        covers.then(|| {
            block
                .iter()
                .enumerate()
                .map(|(d, b)| match d < used {
                    true => quoted(&format!("cdiv({written}, {b})")),
                    false => "1".to_string(),
                })
                .collect()
        })
    }

    /// The elements a grid over the problem covers, as the comment says
    /// them: `16×16` for a 2-D kernel, `1,048,576` for a 1-D one.
    fn extent_text(&self, problem: &Problem) -> String {
        match self.dimensions {
            1 => crate::analysis::format::count(problem.n.pow(problem.dimensions as u32) as f64),
            d => vec![problem.n.to_string(); d].join("×"),
        }
    }

    /// `written` (a launch's shared memory bytes) with each `sizeof` of a
    /// type the file does not define (`sizeof(scalar_t)`, a type
    /// dispatched at run time) taken as the entry's element type, and
    /// what the comment says of it (`, scalar_t taken as float`).
    fn sized_by_element(&self, written: &str, scanned: &Kernels) -> (String, String) {
        let Some(element) = &self.element_type else {
            return (written.to_string(), String::new());
        };
        let sizeof =
            regex::Regex::new(r"\bsizeof\s*\(\s*([A-Za-z_]\w*)\s*\)").expect("a valid pattern");
        let mut unknown: Vec<String> = Vec::new();
        let replaced = sizeof.replace_all(written, |c: &regex::Captures| {
            let name = &c[1];
            let known = signature::is_scalar_type(name)
                || scanned.aliases.iter().any(|(alias, _)| alias == name);
            if known {
                return c[0].to_string();
            }
            if !unknown.iter().any(|u| u == name) {
                unknown.push(name.to_string());
            }
            format!("sizeof({element})")
        });
        let said = match unknown.is_empty() {
            true => String::new(),
            false => format!(", {} taken as {element}", unknown.join(", ")),
        };
        (replaced.into_owned(), said)
    }

    /// The host variables `launch` passes as the kernel's integer scalars
    /// (which the suite sets to N), with the parameter each is passed as.
    /// A variable the file computes (`max_elems_per_block = 2 * block_sz`)
    /// is not N unless it is the size: the file allocates with it, or its
    /// initializer is the file's problem-size constant.
    /// A loop variable is not N, and a size the loops' headers use (`k <=
    /// n`) is N as a size it passes is.
    fn mapped(&self, launch: &Launch, scanned: &Kernels) -> Vec<(String, String)> {
        let Some(parameters) = &self.parameters else {
            return Vec::new();
        };
        let mut mapped: Vec<(String, String)> = launch
            .arguments
            .iter()
            .zip(parameters)
            .filter(|(argument, _)| is_identifier(argument) && !self.repeats_over(argument))
            .filter(|(_, parameter)| {
                matches!(parameter.takes, Takes::Value(c) if !c.float)
                    && parameter.element().is_some()
            })
            // A constant (`#define W 2048`, `int size_x = 2048;`) is a size
            // where an allocation uses it or the kernel bounds an index of
            // a buffer with it (`odata[y * width + x]`); `iters` of `for (k
            // = 0; k < iters; ++k)` is a count of repetitions, passed as
            // it is; nor is a stride (`in[i * stride]` over `n * kStride`
            // elements): it spaces a thread's reads.
            .filter(
                |(argument, parameter)| match constant_value(argument, scanned) {
                    None => holds_a_size(argument, scanned),
                    Some(_) => match (&self.kernel.body, parameter.name()) {
                        (Some(body), Some(name)) => {
                            let pointers = self.pointer_names();
                            // (One the kernel does not read is as the
                            // others of its launch are.)
                            !kernels::only_strides_an_index(body, &name, &pointers)
                                && (allocates(argument, scanned)
                                    || !mentions(body, &name)
                                    || kernels::bounds_an_index(body, &name, &pointers))
                        }
                        _ => allocates(argument, scanned) || holds_a_size(argument, scanned),
                    },
                },
            )
            .map(|(argument, parameter)| {
                (
                    argument.clone(),
                    parameter.name().unwrap_or_else(|| argument.clone()),
                )
            })
            .collect();
        for name in self.loop_sizes(scanned) {
            if !mapped.iter().any(|(variable, _)| *variable == name) {
                mapped.push((name.clone(), name));
            }
        }
        mapped
    }

    /// The names of its pointer parameters.
    fn pointer_names(&self) -> Vec<String> {
        parameter_names(&self.parameters, |p| matches!(p.takes, Takes::Pointer(_)))
    }

    /// Whether `name` is the variable of a loop that repeats its launch.
    fn repeats_over(&self, name: &str) -> bool {
        self.around.loops.iter().any(|l| l.variable == name)
    }

    /// The host variables that hold a size in the headers of the loops
    /// that repeat its launch (`n` in `k <= n`).
    fn loop_sizes(&self, scanned: &Kernels) -> Vec<String> {
        let mut names = Vec::new();
        for piece in self.around.loops.iter().flat_map(|l| l.pieces()) {
            names_through(piece, scanned, 0, &mut names);
        }
        names.retain(|name| {
            !self.repeats_over(name)
                && !signature::is_scalar_type(name)
                && !scanned
                    .integers
                    .iter()
                    .any(|(constant, _)| constant == name)
                && holds_a_size(name, scanned)
        });
        names
    }
}

/// Whether the host variable `name` holds a size the suite sets to N: it
/// has no initializer (a function's parameter no call passes one value),
/// the file allocates with it, or its initializer is such a variable or a
/// product of them (`N = B * T * C`, passed to a wrapper's `int N`). A
/// variable the file computes otherwise (`max_elems_per_block = 2 *
/// block_sz`) does not.
fn holds_a_size(name: &str, scanned: &Kernels) -> bool {
    holds_a_size_within(name, scanned, 4)
}

/// `holds_a_size`, following initializers at most `depth` deep.
fn holds_a_size_within(name: &str, scanned: &Kernels, depth: usize) -> bool {
    match initializer(name, scanned) {
        None => true,
        Some(initial) => {
            allocates(name, scanned)
                || reads_a_size_at_run_time(initial)
                || (depth > 0
                    && initial.split('*').all(|factor| {
                        let factor = factor.trim();
                        is_identifier(factor)
                            && factor != name
                            && holds_a_size_within(factor, scanned, depth - 1)
                    }))
        }
    }
}

/// The most elements a drafted problem size may make (2^33: 32 GiB of
/// floats).
const MOST_ELEMENTS: i64 = 1 << 33;

/// The problem size the suite drafts: N's value, the file's names that
/// hold it, and what the launches read as a block's size.
struct Problem {
    /// The dimensions its buffers take (1 to 3).
    dimensions: usize,
    /// The value `sizes` binds N to.
    n: i64,
    /// The file's constants and variables whose value is N, taken as N.
    names: Vec<String>,
    /// The other sides the file sets to constants of their own (`height
    /// = 1080` beside `width = 1920`), each with its expression over N
    /// ([`sides_apart`]).
    apart: Vec<(String, String)>,
    /// All its elements, over N: `N*N` for a square, `N * floor(N * 9 /
    /// 16)` where a side is apart; what a kernel that indexes in 1-D
    /// covers.
    elements: String,
    /// A count that holds any buffer over the problem, for a buffer whose
    /// count the file does not say: `N*N`, or the largest side's square
    /// where a side apart is larger than N.
    bound: String,
    /// The names the file's launches use in a block's size.
    block_like: Vec<String>,
}

impl Problem {
    /// The file's problem size where its launches read one (`#define SIZE
    /// 16384` in `<<<(SIZE + BLOCK - 1) / BLOCK, BLOCK>>>`, or a variable it
    /// allocates with), when every such name of the drafts in `dimensions`
    /// dimensions holds one value; else the default size, with no names.
    fn of(drafts: &[Draft], scanned: &Kernels, dimensions: usize) -> Problem {
        let mut block_like = Vec::new();
        for launch in &scanned.launches {
            let scanned = &scanned.scoped_at(launch.at);
            for value in shape(launch, 1, scanned).map_or_else(Vec::new, |s| s.values) {
                names_through(&value, scanned, 0, &mut block_like);
            }
            // What a grid divides by is a tile's size, not the problem's:
            // `ROWS_PER_BLOCK` in `(N + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK`.
            for value in shape(launch, 0, scanned).map_or_else(Vec::new, |s| s.values) {
                block_like.extend(divisors(&value));
            }
            // Nor is a template argument (`Sgemv_v2<ROW_PER_WARP>`): a
            // kernel's compile-time tiling.
            if let Some((_, arguments)) = launch.callee.split_once('<') {
                names_through(arguments.trim_end_matches('>'), scanned, 0, &mut block_like);
            }
        }
        let mut found: Vec<(String, i64)> = Vec::new();
        // The kernels that give each value (a template's instances are
        // one kernel).
        let mut kernels_of: Vec<(i64, Vec<*const Kernel>)> = Vec::new();
        for draft in drafts.iter().filter(|d| d.dimensions == dimensions) {
            for size in draft.sizes(&draft.scoped, &block_like) {
                let kernel: *const Kernel = draft.kernel;
                match kernels_of.iter_mut().find(|(value, _)| *value == size.1) {
                    Some((_, kernels)) if !kernels.contains(&kernel) => kernels.push(kernel),
                    Some(_) => {}
                    None => kernels_of.push((size.1, vec![kernel])),
                }
                if !found.contains(&size) {
                    found.push(size);
                }
            }
        }
        // Where the kernels disagree, the size most of them give is the
        // problem's (a transpose's n beside a bank-conflict test's block
        // count); the others keep the file's values.
        kernels_of.sort_by_key(|(_, kernels)| std::cmp::Reverse(kernels.len()));
        if let [(most, first), (_, second), ..] = kernels_of.as_slice()
            && first.len() > second.len()
        {
            found.retain(|(_, value)| value == most);
        }
        // A side the file works out from another (`height =
        // std::max(kTile, size - size / 8)` beside `width = std::max(kTile,
        // size)`) is no size of its own: where the others follow from one
        // value's names, that value is the problem's, and the names it is
        // worked out from are N too.
        if let Some((n, roots)) = one_side_apart(&found, scanned) {
            found.retain(|(_, value)| *value == n);
            for root in roots {
                if !found.iter().any(|(name, _)| *name == root) {
                    found.push((root, n));
                }
            }
        }
        // Sides the file sets to constants of their own (`width = 1920,
        // height = 1080`) keep their proportion to N.
        // (A block's size, `dim3 block_dim(Br)`, is a tile's, no side.)
        let sides: Vec<(String, i64)> = found
            .iter()
            .filter(|(name, _)| !block_like.contains(name))
            .cloned()
            .collect();
        let apart = match sides_apart(&sides, dimensions) {
            Some((n, apart)) => {
                found.retain(|(_, value)| *value == n);
                apart
            }
            None => Vec::new(),
        };
        let one_value = found.windows(2).all(|pair| pair[0].1 == pair[1].1);
        // A side whose N×N elements no GPU holds (a count of 10,000,000
        // taken as a side) is a count of another kernel's, not a side.
        let fits = |n: i64| {
            u32::try_from(dimensions)
                .ok()
                .and_then(|power| n.checked_pow(power))
                .is_some_and(|elements| elements <= MOST_ELEMENTS)
        };
        // Sides apart hold more or fewer elements than N's square.
        let elements = elements_of(dimensions, &apart);
        let fits = |n: i64| match apart.is_empty() {
            true => fits(n),
            false => Expr::parse(&elements)
                .and_then(|e| e.value(n as f64))
                .is_some_and(|all| all <= MOST_ELEMENTS as f64),
        };
        match (found.first(), one_value) {
            (Some(&(_, n)), true) if fits(n) => Problem {
                dimensions,
                n,
                names: found.into_iter().map(|(name, _)| name).collect(),
                elements,
                bound: bound_of(dimensions, &apart, n),
                apart,
                block_like,
            },
            _ => Problem {
                dimensions,
                n: i64::from(SIZES[dimensions - 1]),
                names: Vec::new(),
                apart: Vec::new(),
                elements: COUNTS[dimensions - 1].to_string(),
                bound: COUNTS[dimensions - 1].to_string(),
                block_like,
            },
        }
    }
}

/// What a launch passes an integer scalar that the suite does not set to
/// N (the variable and its initializer as written, and its value where
/// gpuprof can read it), or a float scalar as a literal.
#[derive(Clone)]
struct Passed {
    value: Option<String>,
    written: String,
}

impl Passed {
    /// The scalar's `args` entry `entry` (of the value `default`) with this
    /// value and a comment saying where it comes from.
    fn applied(&self, entry: &str, default: &str) -> String {
        let entry = entry.trim_end_matches('\n');
        match &self.value {
            Some(value) => format!(
                "{} (the file passes {})\n",
                entry
                    .replace(
                        &format!("value = \"{default}\""),
                        &format!("value = {value}")
                    )
                    .replace("value = 1 }", &format!("value = {value} }}")),
                self.written
            ),
            None => format!(
                "{entry} (the file passes {}, which gpuprof cannot evaluate)\n",
                self.written
            ),
        }
    }
}

/// The value of a floating-point literal as TOML (`2.0f` is 2, `-0.5`
/// is -0.5, `1e-3f` is 0.001); None for anything else.
fn float_literal(text: &str) -> Option<String> {
    let digits = text.trim().trim_end_matches(['f', 'F']);
    let value: f64 = digits.parse().ok()?;
    let literal = digits.contains(['.', 'e', 'E']) && value.is_finite();
    literal.then(|| format!("{value}"))
}

/// The initializer the file gives the integer variable `name`: in a
/// scan scoped to a launch ([`Kernels::scoped_at`]), the nearest before it.
fn initializer<'s>(name: &str, scanned: &'s Kernels) -> Option<&'s str> {
    scanned
        .initializers
        .iter()
        .rfind(|(n, _)| n == name)
        .map(|(_, initial)| default_of(initial))
}

/// The value a size takes when the program runs without arguments: the
/// other branch of a choice that reads the command line (`argc > 1 ?
/// atoi(argv[1]) : 4096` is 4096, as `int n = 4096; if (argc > 1) n =
/// atoi(argv[1]);` is), else `initial` itself.
pub(super) fn default_of(initial: &str) -> &str {
    let bytes = initial.as_bytes();
    let (mut depth, mut question, mut colon) = (0i32, None, None);
    for (at, &c) in bytes.iter().enumerate() {
        // (`std::atoi`'s colons are a scope, not the choice's.)
        let scope = bytes.get(at + 1) == Some(&b':') || at > 0 && bytes[at - 1] == b':';
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'?' if depth == 0 && question.is_none() => question = Some(at),
            b':' if depth == 0 && !scope && question.is_some() && colon.is_none() => {
                colon = Some(at)
            }
            _ => {}
        }
    }
    let (Some(question), Some(colon)) = (question, colon) else {
        return initial;
    };
    let chosen = initial[question + 1..colon].trim();
    let otherwise = initial[colon + 1..].trim();
    if chosen.contains('?') || otherwise.contains('?') {
        return initial;
    }
    match (
        reads_a_size_at_run_time(chosen),
        reads_a_size_at_run_time(otherwise),
    ) {
        (true, false) => otherwise,
        (false, true) => chosen,
        _ => initial,
    }
}

/// Whether an initializer reads a size the program learns only when it
/// runs, as a parameter would hold one: a tensor's (`a.size(0)`,
/// `x.numel()`, `t.shape[1]`) or the command line's (`atoi(argv[1])`).
fn reads_a_size_at_run_time(initial: &str) -> bool {
    static RUNTIME_SIZE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"^\(?\s*(?:[A-Za-z_]\w*\s*(?:\.|->)\s*(?:size|numel|shape|sizes)\b|(?:std::)?(?:atoi|atol|atoll|stoi|stol|stoll|strtol|strtoul)\s*\()",
        )
        .expect("a valid pattern")
    });
    RUNTIME_SIZE.is_match(initial.trim())
}

/// Whether the file's allocations use `name` (`cudaMalloc(&d, n * sizeof(float))`,
/// a vector's count: `thrust::device_vector<float> d(n)`), directly or
/// through the variables they use (`mem_size = sizeof(float) * n`).
fn allocates(name: &str, scanned: &Kernels) -> bool {
    let counts = scanned.vectors.iter().map(|(_, count)| count);
    scanned.allocations.iter().chain(counts).any(|a| {
        let mut names = Vec::new();
        names_through(a, scanned, 0, &mut names);
        names.iter().any(|n| n == name)
    })
}

/// The names `text` uses (not the functions it calls, nor `sizeof`'s
/// type), and those of the initializers of the variables it uses, to a
/// depth of 4, each once, into `into`.
fn names_through(text: &str, scanned: &Kernels, depth: usize, into: &mut Vec<String>) {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !(c.is_ascii_alphabetic() || c == '_') || (i > 0 && chars[i - 1].is_ascii_alphanumeric())
        {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
            i += 1;
        }
        let mut word: String = chars[start..i].iter().collect();
        if let Some((member, end)) = member_read(&chars, i, &word, scanned) {
            (word, i) = (member, end);
        }
        let called = chars[i..].iter().find(|c| !c.is_whitespace()) == Some(&'(');
        if called || into.contains(&word) {
            continue;
        }
        if let Some(initial) = initializer(&word, scanned).filter(|_| depth < 4) {
            names_through(initial, scanned, depth + 1, into);
        }
        into.push(word);
    }
}

/// The names `text` divides by: each identifier written right after a
/// `/` (`TILE` of `(n + TILE - 1) / TILE`; one inside a parenthesized
/// divisor, `n / (2 * TILE)`, is not read).
fn divisors(text: &str) -> Vec<String> {
    text.split('/')
        .skip(1)
        .filter_map(|after| {
            let name: String = after
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            is_identifier(&name).then_some(name)
        })
        .collect()
}

/// The value of the file's integer constant `name` when it is the file's
/// problem size: not a block's size (`block_like`), and bounding a kernel
/// (named in a kernel's body) or sizing an allocation; or of a host
/// variable initialized to a constant that sizes an allocation.
fn size_define(name: &str, scanned: &Kernels, block_like: &[String]) -> Option<i64> {
    // A constant, or a plain variable the host initializes to a number
    // (`int N = 1 << 16;`) where it sizes an allocation: a kernel's
    // parameter of the same name says nothing about a host variable, and
    // one computed from other names (`block_num = N / 512`) is derived
    // from them.
    let value = constant_value(name, scanned).filter(|_| {
        scanned
            .integers
            .iter()
            .any(|(constant, _)| constant == name)
            || allocates(name, scanned)
    })?;
    if block_like.iter().any(|b| b == name) || value < 1 || is_an_exponent(name, scanned) {
        return None;
    }
    let mut in_kernel = Vec::new();
    for body in scanned.kernels.iter().filter_map(|k| k.body.as_deref()) {
        names_through(body, scanned, 4, &mut in_kernel);
    }
    (in_kernel.iter().any(|n| n == name) || allocates(name, scanned)).then_some(value)
}

/// Whether `text` uses the word `name`.
fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|word| word == name)
}

/// The value of `name` where the file fixes it: a constant (`#define
/// MASK_WIDTH 7`, `constexpr int K = 3;`) or a variable initialized to
/// numbers alone (`int iters = 1024;`).
fn constant_value(name: &str, scanned: &Kernels) -> Option<i64> {
    match scanned.integers.iter().rev().find(|(n, _)| n == name) {
        Some((_, value)) => Some(*value),
        None if initialized_to_a_number(name, scanned)
            || power_of_two_of(name, scanned)
                .is_some_and(|exponent| constant_value(exponent, scanned).is_some()) =>
        {
            initialized_count(name, scanned)
        }
        None => None,
    }
}

/// The exponent `name` is two to the power of (`power` of `int nElem = 1
/// << power;`): a count the file sets by its exponent, whose elements are
/// the problem's size, not the exponent.
fn power_of_two_of<'s>(name: &str, scanned: &'s Kernels) -> Option<&'s str> {
    // Asked for every initializer of the file (`is_an_exponent`): the
    // pattern is compiled once.
    static SHIFTED_ONE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^\(?\s*1[uUlL]*\s*<<\s*\(?\s*([A-Za-z_]\w*)\s*\)?\s*\)?$")
            .expect("a valid pattern")
    });
    let initial = initializer(name, scanned)?.trim();
    let exponent = SHIFTED_ONE.captures(initial)?.get(1)?.as_str();
    scanned
        .initializers
        .iter()
        .find(|(variable, _)| variable == exponent)
        .map(|(variable, _)| variable.as_str())
        .or_else(|| {
            scanned
                .integers
                .iter()
                .find(|(constant, _)| constant == exponent)
                .map(|(constant, _)| constant.as_str())
        })
}

/// Whether `name` is the exponent of a count the file sets as a power of
/// two ([`power_of_two_of`]): the count is the problem's size.
fn is_an_exponent(name: &str, scanned: &Kernels) -> bool {
    scanned
        .initializers
        .iter()
        .any(|(variable, _)| power_of_two_of(variable, scanned) == Some(name))
}

/// Whether the host variable `name` is initialized to an expression of
/// numbers alone (`1 << 16`, `32 * 1024 * 1024`).
fn initialized_to_a_number(name: &str, scanned: &Kernels) -> bool {
    initializer(name, scanned).is_some_and(|initial| {
        let mut names = Vec::new();
        names_through(initial, scanned, 0, &mut names);
        // (The file's constants, and a configuration's member read at its
        // default, `std::max(kTile, options.size)`, are numbers too.)
        names.iter().all(|word| match word.contains(['.', '>']) {
            true => initialized_to_a_number(word, scanned),
            false => {
                word == "std"
                    || scanned
                        .integers
                        .iter()
                        .any(|(constant, _)| constant == word)
            }
        })
    })
}

/// The whole number, at least 1, that the host variable `name` is
/// initialized to, worked out from the file's own values (`int N = 1 <<
/// 16;`, `size_t n = ROWS * COLS;`).
fn initialized_count(name: &str, scanned: &Kernels) -> Option<i64> {
    initializer(name, scanned)
        .and_then(|i| translate(i, &[], &[], scanned, &mut Vec::new(), 1))
        .and_then(|t| Expr::parse(&t))
        .and_then(|e| e.value(0.0))
        .filter(|v| *v >= 1.0 && v.fract() == 0.0 && *v < 1e12)
        .map(|v| v as i64)
}

/// Whether the file works `name` out from the problem's size to another
/// value (`height = std::max(2, size - size / 4)` beside `width = size`):
/// its initializer, over `roots` (the names whose value is N), is an
/// expression of N that gives the file's own value at the file's size
/// `n`, and that value is not `n` but is of its magnitude (within 64× of
/// it: a side, not a stream's share of a count, `n / nStreams`, nor a
/// count made of a few, `4 * 1024 * blockSize * nStreams`).
fn follows_n_apart(
    name: &str,
    roots: &[(String, String, &str)],
    scanned: &Kernels,
    n: i64,
) -> bool {
    let (Some(initial), Some(value)) =
        (initializer(name, scanned), initialized_count(name, scanned))
    else {
        return false;
    };
    let mut used = Vec::new();
    let over_n = translate(initial, roots, &[], scanned, &mut used, 1)
        .and_then(|t| Expr::parse(&t))
        .and_then(|e| e.value(n as f64));
    let comparable = value.saturating_mul(64) >= n && n.saturating_mul(64) >= value;
    value != n && comparable && !used.is_empty() && over_n == Some(value as f64)
}

/// Where the sizes `found` hold several values, the one value whose
/// names every other is worked out from ([`follows_n_apart`]), with the
/// names of that value its names are read through (`options.size` of
/// `width = std::max(kTile, options.size)`).
fn one_side_apart(found: &[(String, i64)], scanned: &Kernels) -> Option<(i64, Vec<String>)> {
    let mut values: Vec<i64> = found.iter().map(|(_, value)| *value).collect();
    values.sort_unstable();
    values.dedup();
    if values.len() < 2 {
        return None;
    }
    values.into_iter().find_map(|n| {
        let mut roots: Vec<String> = Vec::new();
        for (name, _) in found.iter().filter(|(_, value)| *value == n) {
            let mut through = Vec::new();
            names_through(name, scanned, 0, &mut through);
            for word in through {
                let same = word == *name || initialized_count(&word, scanned) == Some(n);
                if same && !roots.contains(&word) {
                    roots.push(word);
                }
            }
        }
        let mapped: Vec<(String, String, &str)> = roots
            .iter()
            .map(|root| (root.clone(), root.clone(), "N"))
            .collect();
        found
            .iter()
            .filter(|(_, value)| *value != n)
            .all(|(name, _)| follows_n_apart(name, &mapped, scanned, n))
            .then_some((n, roots))
    })
}

/// Where the sides `found` of a problem in `dimensions` dimensions hold
/// two or more values but no more than its sides, none worked out from
/// another (`const int width = 1920, height = 1080;`, a matrix's `M =
/// 512` beside `N = 1024`): N is the value most of their names hold, the
/// largest where as many hold each, and every other name keeps its
/// proportion to it (`height` is `floor(N * 9 / 16)`) or, in none simple,
/// its value ([`in_proportion`]), so the file's own shape is drafted at
/// its size; a side more than 64× smaller (llm.c's batch of 8 beside 1024
/// tokens, a side of 1) stays its value. None where a value is more than
/// 64× larger than N (a count, not a side).
fn sides_apart(found: &[(String, i64)], dimensions: usize) -> Option<(i64, Vec<(String, String)>)> {
    let mut values: Vec<i64> = found.iter().map(|(_, value)| *value).collect();
    values.sort_unstable();
    values.dedup();
    if dimensions < 2 || values.len() < 2 || values.len() > dimensions {
        return None;
    }
    let names = |value: i64| found.iter().filter(|(_, v)| *v == value).count();
    let n = values
        .iter()
        .copied()
        .filter(|&value| value > 1)
        .max_by_key(|&value| (names(value), value))?;
    // A side more than 64× smaller than N (a batch of 8 beside 1024
    // tokens, a side of 1) stays the file's number; one more than 64×
    // larger is a count, not a side.
    let small = |value: i64| value.saturating_mul(64) < n;
    if n < 1
        || values
            .iter()
            .any(|&value| value < 1 || value > n.saturating_mul(64))
    {
        return None;
    }
    let apart = found
        .iter()
        .filter(|(_, value)| *value != n)
        .map(|&(ref name, value)| match small(value) || value == 1 {
            true => (name.clone(), value.to_string()),
            false => (name.clone(), in_proportion(value, n)),
        })
        .collect();
    Some((n, apart))
}

/// The elements of a problem in `dimensions` dimensions whose sides are
/// N but those `apart` ([`sides_apart`]): `N*N*N`, `N * N * (N * 10)`.
fn elements_of(dimensions: usize, apart: &[(String, String)]) -> String {
    let mut sides: Vec<String> = Vec::new();
    for (_, over_n) in apart {
        let side = as_factor(over_n);
        if !sides.contains(&side) {
            sides.push(side);
        }
    }
    match sides.is_empty() {
        true => COUNTS[dimensions - 1].to_string(),
        false => {
            let square = dimensions.saturating_sub(sides.len()).max(1);
            let mut all = vec!["N".to_string(); square];
            all.extend(sides);
            all.join(" * ")
        }
    }
}

/// A count that holds every buffer of a problem in `dimensions`
/// dimensions with the sides `apart` at N = `n`: N's square (or cube),
/// or, where a side apart is larger, that side's.
fn bound_of(dimensions: usize, apart: &[(String, String)], n: i64) -> String {
    let larger = apart
        .iter()
        .filter_map(|(_, over_n)| Some((Expr::parse(over_n)?.value(n as f64)?, over_n)))
        .filter(|(value, _)| *value > n as f64)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match larger {
        None => COUNTS[dimensions - 1].to_string(),
        Some((_, side)) => vec![as_factor(side); dimensions].join(" * "),
    }
}

/// A side's expression as a factor of a product: `N * 10` in
/// parentheses; a number, N or a `floor(…)` as it is.
fn as_factor(side: &str) -> String {
    match side.starts_with("floor(") || !side.contains(' ') {
        true => side.to_string(),
        false => format!("({side})"),
    }
}

/// `value` as an expression over N that gives it where N is `n`:
/// `N * 2`, `floor(N / 2)`, `floor(N * 9 / 16)`; a side in no simple
/// proportion to N (a batch of 1000 beside a signal of 513) stays the
/// file's value.
fn in_proportion(value: i64, n: i64) -> String {
    let gcd = |mut a: i64, mut b: i64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let common = gcd(value, n);
    match (value / common, n / common) {
        (times, 1) => format!("N * {times}"),
        (1, parts) => format!("floor(N / {parts})"),
        (times, parts) if parts <= 16 => format!("floor(N * {times} / {parts})"),
        _ => value.to_string(),
    }
}

/// The `entry` of `kernel`'s variant, from the instance `launch` names
/// where the kernel is a template, and that instance's arguments.
fn entry_of(kernel: &Kernel, launch: Option<&Launch>, scanned: &Kernels) -> (Setting, Vec<String>) {
    let spaced = |comment: String| format!("                # {comment}");
    match (&kernel.template, launch) {
        (Some(parameters), Some(launch)) if launch.callee.contains('<') => {
            let (entry, mut unread, computed) = launched_instance(&launch.callee, scanned);
            // A type the file does not fix where it launches the kernel (a
            // host template's own `T`): float, marked.
            let types = signature::type_parameters(parameters);
            let mut floated = Vec::new();
            let arguments: Vec<String> = signature::instance_arguments(&entry)
                .unwrap_or_default()
                .into_iter()
                .zip(types.iter().chain(std::iter::repeat(&false)))
                .map(|(argument, &is_type)| {
                    let shown = format!("`{argument}`");
                    match is_type && unread.contains(&shown) {
                        true => {
                            floated.push(shown);
                            "float".to_string()
                        }
                        false => argument,
                    }
                })
                .collect();
            let entry = match floated.is_empty() {
                true => entry,
                false => {
                    unread.retain(|name| !floated.contains(name));
                    format!("{}<{}>", kernels::entry_base(&entry), arguments.join(", "))
                }
            };
            let instance = signature::instance_arguments(&entry).unwrap_or_default();
            let comment = match (unread.is_empty(), computed.is_empty()) {
                (true, _) if !floated.is_empty() => format!(
                    "fill in: float chosen for {} (the file launches {}; template <{parameters}>)",
                    floated.join(", "),
                    launch.callee
                ),
                (true, true) => "the instance the file launches".to_string(),
                (true, false) => format!(
                    "fill in: the instance the file launches, {}, computed from the file's own values: check it at your sizes",
                    computed.join(", ")
                ),
                (false, _) => format!(
                    "fill in: a value for {} (the file launches {}; template <{parameters}>)",
                    unread.join(", "),
                    launch.callee
                ),
            };
            (
                Setting::new("entry", quoted(&entry), spaced(comment)),
                instance,
            )
        }
        (Some(_), Some(launch)) if deduced_instance(kernel, launch, scanned).is_some() => {
            let entry = deduced_instance(kernel, launch, scanned).unwrap_or_default();
            let instance = signature::instance_arguments(&entry).unwrap_or_default();
            (
                Setting::new(
                    "entry",
                    quoted(&entry),
                    spaced(
                        "the instance the file launches, its types deduced from the pointers it passes"
                            .to_string(),
                    ),
                ),
                instance,
            )
        }
        (Some(parameters), _) => {
            let instances: Vec<&String> = scanned
                .instantiated
                .iter()
                .filter(|instance| kernels::entry_base(instance) == kernel.name)
                .collect();
            let defaults = signature::default_instance_arguments(parameters);
            match (instances.as_slice(), defaults) {
                // Types it dispatches at run time (`AT_DISPATCH_…`), a host
                // template's own parameter: float, and the defaults.
                ([], Some(arguments)) => {
                    let entry = format!("{}<{}>", kernel.name, arguments.join(", "));
                    (
                        Setting::new(
                            "entry",
                            quoted(&entry),
                            spaced(format!(
                                "fill in: {} chosen for <{parameters}> (float for a type, else its default): the file does not fix them where it launches it",
                                arguments.join(", ")
                            )),
                        ),
                        signature::instance_arguments(&entry).unwrap_or_default(),
                    )
                }
                ([], None) => (
                    Setting::new(
                        "entry",
                        quoted(&format!("{}<…>", kernel.name)),
                        spaced(format!("fill in: a value for each of <{parameters}>")),
                    ),
                    Vec::new(),
                ),
                ([only], _) => (
                    Setting::new(
                        "entry",
                        quoted(only),
                        spaced("the instance the file instantiates explicitly".to_string()),
                    ),
                    signature::instance_arguments(only).unwrap_or_default(),
                ),
                ([first, ..], _) => (
                    Setting::new(
                        "entry",
                        quoted(first),
                        spaced(format!(
                            "fill in: one of the instances the file instantiates explicitly: {}",
                            join_names(&instances)
                        )),
                    ),
                    signature::instance_arguments(first).unwrap_or_default(),
                ),
            }
        }
        (None, _) => (
            Setting::new("entry", quoted(&kernel.name), String::new()),
            Vec::new(),
        ),
    }
}

/// The instance of the template `kernel` that `launch` (written without
/// template arguments: `scale<<<g, b>>>(in, out, n)`) makes C++ deduce:
/// each type parameter `T` from a pointer parameter `T *` or `const T *`
/// and the scalar type the host declares the pointer it passes with
/// (`float *in`). `None` when a type parameter is not deduced so, or a non-type
/// parameter has no default.
fn deduced_instance(kernel: &Kernel, launch: &Launch, scanned: &Kernels) -> Option<String> {
    let template = kernel.template.as_deref()?;
    let parameters = signature::split_top_level(&kernel.parameters, true);
    let mut types = Vec::new();
    for declared in signature::split_top_level(template, true) {
        let declared = declared.trim();
        let words: Vec<&str> = declared
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        match words.first() {
            Some(&("typename" | "class")) if !declared.contains('=') => {
                let name = *words.last()?;
                let deduced = parameters.iter().zip(&launch.arguments).find_map(
                    |(parameter, argument)| {
                        let pointee = parameter.split('*').next()?;
                        let points_to_it = parameter.contains('*')
                            && pointee
                                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                                .any(|w| w == name);
                        let argument = argument.trim();
                        points_to_it
                            .then(|| {
                                scanned
                                    .host_pointers
                                    .iter()
                                    .rev()
                                    .find(|(variable, _)| variable == argument)
                            })
                            .flatten()
                            // The enclosing host template's own `T *d_a`
                            // is the type its caller gives `T`.
                            .map(|(_, pointee)| {
                                host_template_type(pointee, launch.at, scanned)
                                    .unwrap_or(pointee)
                                    .to_string()
                            })
                            .filter(|pointee| {
                                signature::size_of(pointee, &scanned.aliases).is_some()
                            })
                    },
                )?;
                types.push(deduced);
            }
            // A defaulted parameter, and every one after it, keeps its default.
            _ if declared.contains('=') => break,
            _ => return None,
        }
    }
    (!types.is_empty()).then(|| format!("{}<{}>", kernel.name, types.join(", ")))
}

/// The type the host function template around the offset `at` is called
/// with for its type parameter `name` (`float` for `T` inside
/// `runTest<float>`'s body), where `name` is one.
fn host_template_type<'s>(name: &str, at: usize, scanned: &'s Kernels) -> Option<&'s str> {
    scanned
        .host_template_types
        .iter()
        .filter(|(body, _)| body.contains(&at))
        .flat_map(|(_, types)| types)
        .find(|(parameter, _)| parameter == name.trim())
        .map(|(_, chosen)| chosen.as_str())
}

/// The names `launch` uses in its arguments and configuration (through
/// its `dim3` variables and the initializers of the variables it uses).
/// The host variables `launch` passes to the kernel's pointer parameters,
/// each with the parameter's name.
fn pointer_arguments(
    launch: &Launch,
    parameters: Option<&[Parameter]>,
) -> Vec<loops::PassedPointer> {
    launch
        .arguments
        .iter()
        .zip(parameters.unwrap_or_default())
        .filter(|(argument, parameter)| {
            is_identifier(argument) && matches!(parameter.takes, Takes::Pointer(_))
        })
        .map(|(argument, parameter)| {
            (
                argument.clone(),
                parameter.name().unwrap_or_else(|| argument.clone()),
            )
        })
        .collect()
}

fn launch_names(launch: &Launch, scanned: &Kernels) -> Vec<String> {
    let mut names = Vec::new();
    let shapes = (0..2).filter_map(|k| shape(launch, k, scanned));
    let written = shapes
        .flat_map(|s| s.values)
        .chain(launch.config.get(2).cloned())
        .chain(launch.arguments.iter().cloned());
    for text in written {
        names_through(&text, scanned, 0, &mut names);
    }
    names
}

/// How the file launches `kernel`: directly; through a function pointer
/// it assigns the kernel to; or, failing both, the one configuration it
/// launches function pointers with, if the kernel indexes as many
/// dimensions as that configuration has.
fn launched<'a>(kernel: &Kernel, scanned: &'a Kernels) -> Launched<'a> {
    let short = |name: &str| name.rsplit("::").next().unwrap_or(name).to_string();
    let is_kernel = |callee: &str| {
        let base = kernels::entry_base(callee);
        scanned
            .kernels
            .iter()
            .any(|k| k.name == base || short(&k.name) == base)
    };
    if let Some(launch) = scanned
        .launches
        .iter()
        .find(|l| kernels::entry_base(&l.callee) == kernel.name || l.callee == kernel.name)
    {
        return Launched::Directly(launch);
    }
    let through: Vec<&Launch> = scanned
        .launches
        .iter()
        .filter(|l| !is_kernel(&l.callee))
        .collect();
    for launch in &through {
        let pointer = kernels::entry_base(&launch.callee);
        let assigned = scanned.assignments.iter().find(|(variable, value)| {
            *variable == pointer && (*value == kernel.name || short(value) == short(&kernel.name))
        });
        if let Some((variable, _)) = assigned {
            return Launched::Through(launch, variable.as_str());
        }
    }
    let mut configurations: Vec<Vec<Vec<String>>> = Vec::new();
    for launch in &through {
        let configuration: Vec<Vec<String>> = (0..2)
            .map(|k| shape(launch, k, scanned).map_or_else(Vec::new, |s| s.values))
            .collect();
        if !configurations.contains(&configuration) {
            configurations.push(configuration);
        }
    }
    if let ([configuration], Some(body)) = (configurations.as_slice(), &kernel.body) {
        let (block, grid) = kernels::index_dimensions(body);
        let matches = trimmed(&configuration[1]).len() == block
            && trimmed(&configuration[0]).len() == grid.max(block);
        if matches {
            return Launched::Offered(through[0]);
        }
    }
    Launched::Not
}

/// The grid (`k` = 0) or block (`k` = 1) of `launch` as expressions:
/// `dim3(a, b)` written in the launch, a `dim3` variable of the file (the
/// last declared before the launch), or one expression.
fn shape(launch: &Launch, k: usize, scanned: &Kernels) -> Option<Shape> {
    let written = launch.config.get(k)?.trim();
    for (open, close) in [
        ("dim3(", ')'),
        ("dim3{", '}'),
        ("dim3 (", ')'),
        ("dim3 {", '}'),
    ] {
        if let Some(inner) = written
            .strip_prefix(open)
            .and_then(|rest| rest.strip_suffix(close))
        {
            return Some(Shape {
                values: signature::split_top_level(inner, false),
                declared: None,
            });
        }
    }
    if is_identifier(written) {
        let declarations = scanned.dim3s.iter().filter(|d| d.name == written);
        // A dim3 declared later (a wrapper's parameter, passed from
        // `main` below it) is taken only where no integer variable of that
        // name is (`size_t grid = …` in this launch's function, another
        // function's `dim3 grid{…}` further down).
        let integer = scanned.initializers.iter().any(|(name, _)| name == written);
        let declared = declarations
            .clone()
            .rfind(|d| d.at < launch.at)
            .or_else(|| declarations.clone().next().filter(|_| !integer));
        if let Some(declared) = declared {
            return Some(Shape {
                values: declared.values.clone(),
                declared: Some(format!(
                    "dim3 {}({})",
                    declared.name,
                    declared.values.join(", ")
                )),
            });
        }
    }
    Some(Shape {
        values: vec![written.to_string()],
        declared: None,
    })
}

/// `values` without trailing `1`s (`dim3(n, 1, 1)` is 1-D), at least one.
fn trimmed(values: &[String]) -> &[String] {
    let mut end = values.len();
    while end > 1 && values[end - 1].trim() == "1" {
        end -= 1;
    }
    &values[..end]
}

fn numbers(values: &[u32]) -> String {
    values
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The elements each thread of a 1-D kernel takes, where the body scales
/// its global index by a constant: `(threadIdx.x + blockIdx.x *
/// blockDim.x) * 2` (either order of the sum, the factor on either side,
/// a literal or an integer constant of the file), with the scaling as
/// written.
fn elements_per_thread(body: &str, scanned: &Kernels) -> Option<(u32, String)> {
    let text: String = body.chars().filter(|c| !c.is_whitespace()).collect();
    let factor = |word: &str| -> Option<u32> {
        let value = word.parse::<i64>().ok().or_else(|| {
            scanned
                .integers
                .iter()
                .rev()
                .find(|(name, _)| name == word)
                .map(|(_, v)| *v)
        })?;
        u32::try_from(value).ok().filter(|k| (2..=64).contains(k))
    };
    let word_at = |from: &str| -> String {
        from.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let word_before = |head: &str| -> String {
        let start = head
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
            .last()
            .map_or(head.len(), |(i, _)| i);
        head[start..].to_string()
    };
    for index in [
        "(threadIdx.x+blockIdx.x*blockDim.x)",
        "(blockIdx.x*blockDim.x+threadIdx.x)",
        "(threadIdx.x+blockDim.x*blockIdx.x)",
        "(blockDim.x*blockIdx.x+threadIdx.x)",
    ] {
        let Some(at) = text.find(index) else {
            continue;
        };
        let after = word_at(text[at + index.len()..].strip_prefix('*').unwrap_or(""));
        if let Some(k) = factor(&after) {
            return Some((k, format!("{index} * {after}")));
        }
        let before = text[..at]
            .strip_suffix('*')
            .map(word_before)
            .unwrap_or_default();
        if let Some(k) = factor(&before) {
            return Some((k, format!("{before} * {index}")));
        }
    }
    // `int idx = blockIdx.x * blockDim.x + threadIdx.x; … x[idx * 2]`: the
    // index held in a variable, scaled where it indexes.
    static HELD: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        let (block, thread) = (
            r"(?:blockIdx\.x\s*\*\s*blockDim\.x|blockDim\.x\s*\*\s*blockIdx\.x)",
            r"threadIdx\.x",
        );
        regex::Regex::new(&format!(
            r"\b([A-Za-z_]\w*)\s*=\s*(?:{block}\s*\+\s*{thread}|{thread}\s*\+\s*{block})\s*;"
        ))
        .expect("a valid pattern")
    });
    for held in HELD.captures_iter(body) {
        let variable = &held[1];
        for (pattern, after) in [
            (format!("[{variable}*"), true),
            (format!("*{variable}]"), false),
        ] {
            let Some(scaled) = text.find(&pattern) else {
                continue;
            };
            let word = match after {
                true => word_at(&text[scaled + pattern.len()..]),
                false => word_before(&text[..scaled]),
            };
            if let Some(k) = factor(&word) {
                let written = match after {
                    true => format!("[{variable} * {word}"),
                    false => format!("{word} * {variable}]"),
                };
                return Some((k, written));
            }
        }
    }
    None
}

/// The instance a launch names (`reduce<BLOCK, 2>`) with the names the
/// file gives an integer replaced by it (`reduce<256, 2>`), and the
/// arguments left that are neither numbers nor types.
fn launched_instance(callee: &str, scanned: &Kernels) -> (String, Vec<String>, Vec<String>) {
    let Ok(arguments) = signature::instance_arguments(callee) else {
        return (callee.to_string(), vec![callee.to_string()], Vec::new());
    };
    let (mut unread, mut computed) = (Vec::new(), Vec::new());
    let filled: Vec<String> = arguments
        .into_iter()
        .map(|argument| {
            if let Some((_, value)) = scanned.integers.iter().rev().find(|(n, _)| *n == argument) {
                // A constant the host works out (`const int PER_THREAD = N /
                // blocks / BLOCK;`) holds at the file's own numbers only.
                if initializer(&argument, scanned).is_some_and(|i| i.parse::<i64>().is_err()) {
                    computed.push(format!("`{argument}` is {value}"));
                }
                return value.to_string();
            }
            if let Some((_, value)) = scanned.booleans.iter().rev().find(|(n, _)| *n == argument) {
                return value.to_string();
            }
            let plain = argument.parse::<i64>().is_ok()
                || matches!(argument.as_str(), "true" | "false")
                || signature::is_scalar_type(&argument);
            if plain {
                return argument;
            }
            // `PER_THREAD` of `const int PER_THREAD = N / blocks / BLOCK;`:
            // its value at the file's own numbers.
            let value = translate(&argument, &[], &[], scanned, &mut Vec::new(), 0)
                .and_then(|t| Expr::parse(&t))
                .and_then(|e| e.value(0.0))
                .filter(|v| v.fract() == 0.0 && v.abs() < 1e15);
            match value {
                Some(value) => {
                    let value = (value as i64).to_string();
                    computed.push(format!("`{argument}` is {value}"));
                    value
                }
                None => {
                    unread.push(format!("`{argument}`"));
                    argument
                }
            }
        })
        .collect();
    let base = callee.split('<').next().unwrap_or(callee).trim();
    (format!("{base}<{}>", filled.join(", ")), unread, computed)
}

/// The vector whose storage `argument` is: `d.data()`,
/// `thrust::raw_pointer_cast(d.data())`, `&d[0]`.
fn vector_storage(argument: &str) -> Option<&str> {
    let inner = argument
        .trim()
        .strip_prefix("thrust::raw_pointer_cast(")
        .or_else(|| argument.trim().strip_prefix("raw_pointer_cast("))
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or(argument)
        .trim();
    let name = inner
        .strip_suffix(".data()")
        .or_else(|| inner.strip_prefix('&')?.trim().strip_suffix("[0]"))?
        .trim();
    is_identifier(name).then_some(name)
}

/// The element type of the `extern __shared__` array `body` declares
/// (`extern __shared__ real s_y[];`, `extern __shared__ __align__(16)
/// float tile[];`) and its size in bytes, its aliases resolved; `None`
/// where it declares none or its type has no size gpuprof knows.
fn extern_shared_element(body: &str, aliases: &[(String, String)]) -> Option<(String, usize)> {
    let declaration = regex::Regex::new(
        r"\bextern\s+__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s+)?([A-Za-z_][\w:]*(?:\s+[A-Za-z_][\w:]*)*?)\s+[A-Za-z_]\w*\s*\[\s*\]",
    )
    .expect("a valid pattern");
    let element = declaration.captures(body)?.get(1)?.as_str().to_string();
    let size = signature::size_of(&element, aliases)?;
    Some((element, size))
}

/// The pointer whose element a `sizeof` measures: `data` of
/// `sizeof(data[0])` and of `sizeof(*data)`; None for a type's.
fn sizeof_pointee(factor: &str) -> Option<&str> {
    let operand = factor.strip_prefix("sizeof")?.trim();
    let operand = operand
        .strip_prefix('(')
        .and_then(|o| o.strip_suffix(')'))
        .unwrap_or(operand)
        .trim();
    let pointer = match operand.strip_prefix('*') {
        Some(pointer) => pointer.trim(),
        None => operand.strip_suffix(']')?.split_once('[')?.0.trim(),
    };
    is_identifier(pointer).then_some(pointer)
}

/// The factors of a product as written, split only at its own `*`s:
/// `(N + 2*RADIUS) * sizeof(int)` is `(N + 2*RADIUS)` and `sizeof(int)`.
fn top_level_factors(product: &str) -> Vec<String> {
    let mut factors = vec![String::new()];
    let mut depth = 0i32;
    for c in product.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '*' if depth == 0 => {
                factors.push(String::new());
                continue;
            }
            _ => {}
        }
        factors.last_mut().expect("starts with one").push(c);
    }
    factors
}

/// A pointer the launch passes from an element on, as its base and the
/// offset in elements: `d_in + RADIUS` and `&d_in[RADIUS]` give `("d_in",
/// "RADIUS")`.
fn offset_pointer(argument: &str) -> Option<(&str, &str)> {
    let argument = argument.trim();
    let (base, offset) = match argument.strip_prefix('&') {
        Some(element) => {
            let (base, rest) = element.split_once('[')?;
            (base, rest.trim_end().strip_suffix(']')?)
        }
        None => argument.split_once('+')?,
    };
    let (base, offset) = (uncast(base), offset.trim());
    (is_identifier(base) && !offset.is_empty()).then_some((base, offset))
}

/// A launch argument without the cast in front of it: `d_a` of
/// `(float4 *)d_a` and of `reinterpret_cast<float4 *>(d_a)`.
fn uncast(argument: &str) -> &str {
    let argument = argument.trim();
    if let Some(rest) = argument.strip_prefix("reinterpret_cast<")
        && let Some(open) = rest.find(">(")
    {
        return rest[open + 2..]
            .strip_suffix(')')
            .unwrap_or(argument)
            .trim();
    }
    match argument
        .strip_prefix('(')
        .and_then(|rest| rest.split_once(')'))
    {
        Some((cast, rest)) if cast.trim_end().ends_with('*') && is_identifier(rest.trim()) => {
            rest.trim()
        }
        _ => argument,
    }
}

/// How many scalar elements one of what the pointer `parameter` points
/// to holds: 3 for a `float3 *` (or a pointer to a struct of three
/// floats), else 1.
fn lanes_of(parameter: &Parameter) -> usize {
    match (parameter.vector_pointee_bytes(), parameter.element()) {
        (Some(bytes), Some(element)) => (bytes / element.size_bytes()).max(1),
        _ => 1,
    }
}

/// A parameter's type as written, without its name (`const floatX*` of
/// `const floatX* inp`).
fn written_type(parameter: &Parameter) -> &str {
    let written = parameter.written.trim();
    match parameter.name() {
        Some(name) if written.ends_with(name.as_str()) => {
            written[..written.len() - name.len()].trim_end()
        }
        _ => written,
    }
}

/// `text` as a TOML string, escaped.
pub(super) fn quoted(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

const INPUT: &str = "fill = \"random\"";
const OUTPUT: &str = "output = true";
const BOTH: &str = "output = true, fill = \"random\"";

/// The names of the `parameters` that `keep` keeps.
fn parameter_names(
    parameters: &Option<Vec<Parameter>>,
    keep: fn(&Parameter) -> bool,
) -> Vec<String> {
    parameters
        .iter()
        .flatten()
        .filter(|p| keep(p))
        .filter_map(Parameter::name)
        .collect()
}

/// Whether a parameter is an integer scalar wide enough to hold a count
/// (4 bytes or more): what init drafts as a size.
fn holds_a_count(parameter: &Parameter) -> bool {
    matches!(parameter.takes, Takes::Value(c) if !c.float && c.bytes >= 4)
}

/// Types the `void *` parameters the body reads through one cast to a
/// pointer gpuprof can pass (`(const uint4 *)x + idx`,
/// `reinterpret_cast<float4 *>(y)`, `static_cast<half *>(p)`), in place:
/// each by name, as the file writes it, with the type it is used as. A
/// pointer cast to two different types, or to one gpuprof cannot pass,
/// stays untyped.
fn type_by_casts(
    parameters: &mut [Parameter],
    body: &str,
    aliases: &[(String, String)],
) -> Vec<(String, String, String)> {
    let mut typed = Vec::new();
    for parameter in parameters.iter_mut() {
        let Some(name) = parameter.name() else {
            continue;
        };
        if !matches!(parameter.takes, Takes::Pointer(None))
            || !written_type(parameter)
                .split_whitespace()
                .any(|w| w == "void")
        {
            continue;
        }
        let escaped = regex::escape(&name);
        let casts = regex::Regex::new(&format!(
            r"\(\s*((?:const\s+)?[A-Za-z_][\w:]*(?:\s+const)?\s*\*)\s*\)\s*{escaped}\b|(?:reinterpret|static)_cast\s*<\s*((?:const\s+)?[A-Za-z_][\w:]*(?:\s+const)?\s*\*)\s*>\s*\(\s*{escaped}\s*\)"
        ))
        .expect("a valid pattern");
        let mut types: Vec<String> = casts
            .captures_iter(body)
            .filter_map(|c| c.get(1).or_else(|| c.get(2)))
            .map(|m| m.as_str().split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        types.dedup();
        let [cast] = types.as_slice() else {
            continue;
        };
        let Some(retyped) = signature::parameters(&format!("{cast} {name}"), None, &[], aliases)
            .and_then(|mut list| list.pop())
            .filter(|p| p.element().is_some())
        else {
            continue;
        };
        typed.push((name, written_type(parameter).to_string(), cast.clone()));
        parameter.resolved = retyped.resolved;
        parameter.takes = retyped.takes;
    }
    typed
}

/// A pointer parameter named `shown` as a buffer: its element type, its
/// role (`INPUT`, `OUTPUT` or `BOTH`) and what the comment adds; `None`
/// for a pointer to a type gpuprof cannot make. An input when it points to
/// `const` or the kernel only reads it, an output when it writes it, one
/// with a fill when it reads and writes it or hands it where the scan
/// cannot follow (filled and compared holds whatever happens there).
fn buffer_of(
    parameter: &Parameter,
    uses: Option<PointerUse>,
    shown: &str,
) -> Option<(&'static str, &'static str, String)> {
    let Takes::Pointer(_) = &parameter.takes else {
        return None;
    };
    let element = parameter.element()?.name();
    if points_to_const(&parameter.written) {
        return Some((element, INPUT, String::new()));
    }
    let (role, comment) = match uses {
        Some(PointerUse {
            read: true,
            written: true,
            ..
        }) => (
            BOTH,
            " (the kernel reads and writes it: filled, then compared)".to_string(),
        ),
        Some(PointerUse {
            written: true,
            escapes: false,
            ..
        }) => (OUTPUT, String::new()),
        Some(PointerUse {
            written: true,
            escapes: true,
            ..
        }) => (
            BOTH,
            format!(
                " (the kernel writes it and hands `{shown}` on where gpuprof cannot follow it: filled first in case that reads it, then compared; if it does not, drop the fill so elements left unwritten show)"
            ),
        ),
        Some(PointerUse {
            read: true,
            escapes: false,
            ..
        }) => (INPUT, " (the kernel only reads it)".to_string()),
        Some(PointerUse { escapes: false, .. }) => {
            (INPUT, " (the kernel does not use it)".to_string())
        }
        Some(PointerUse { escapes: true, .. }) => (
            BOTH,
            format!(
                " (the kernel hands `{shown}` on where gpuprof cannot follow it: filled, then compared, which holds whatever it does there; if it only reads it, drop output = true; if it only writes it, drop the fill)"
            ),
        ),
        None => (
            BOTH,
            " (filled, then compared, which holds whatever the kernel does with it; if it only reads it, drop output = true; if it only writes it, drop the fill)"
                .to_string(),
        ),
    };
    Some((element, role, comment))
}

/// A buffer's allocation in the file: its bytes as written, its element
/// count, and the variable allocated.
struct Allocation {
    count: String,
    bytes: String,
    variable: String,
}

/// A buffer's `count` as TOML and what its comment says of it.
struct Count {
    toml: String,
    comment: String,
    /// Compared by its sum (`compare = "sum"`): one partial result a
    /// block, which variants with other grids split otherwise.
    summed: bool,
    /// Filled with zeros: a kernel adds its partial results to it.
    zeroed: bool,
}

/// The parameter at `position` as an `args` entry: a pointer as a buffer
/// of `count` elements ([`buffer_of`]), a value as a scalar (an integer
/// one of `value`).
fn argument(
    position: usize,
    parameter: &Parameter,
    uses: Option<PointerUse>,
    count: &Count,
    value: &str,
) -> String {
    let shown = parameter
        .name()
        .unwrap_or_else(|| format!("arg{}", position + 1));
    let name = quoted(&shown);
    let written = &parameter.written;
    let unknown = |what: &str| {
        format!(
            "  # fill in: `{written}` is a {what} gpuprof cannot make; gpuprof passes {}\n",
            ElementType::ALL.map(ElementType::name).join(", ")
        )
    };
    match &parameter.takes {
        Takes::Pointer(_) => match buffer_of(parameter, uses, &shown) {
            Some((element, role, comment)) => {
                // A buffer added to from zero says so in its count's
                // comment: "reads and writes it: filled" would say it again.
                let (role, comment) = match count.zeroed {
                    true => ("output = true, fill = \"zeros\"", String::new()),
                    false => (role, comment),
                };
                format!(
                    "  {{ name = {name}, buffer = \"{element}\", count = {}, {role}{} }},  # {}{comment}\n",
                    count.toml,
                    match count.summed {
                        true => ", compare = \"sum\"",
                        false => "",
                    },
                    count.comment
                )
            }
            None => unknown("pointer to a type"),
        },
        // A float, or an integer too narrow to hold a size, starts at 1.
        Takes::Value(_) => match parameter.element().map(ElementType::name) {
            Some(element) if !holds_a_count(parameter) => format!(
                "  {{ name = {name}, scalar = \"{element}\", value = 1 }},  # fill in: its value\n"
            ),
            Some(element) => format!(
                "  {{ name = {name}, scalar = \"{element}\", value = \"{value}\" }},  # fill in: its value\n"
            ),
            None => unknown("parameter type"),
        },
        Takes::Unknown => unknown("parameter type"),
    }
}

/// The `args` entry of a scalar `name` to which the launch passes
/// `argument`, an expression of the loop variables of `turn` (`j`, `k *
/// 2`): its value is that expression.
fn looped_scalar(
    name: &str,
    parameter: &Parameter,
    argument: &str,
    reader: &Reader,
    turn: &Turn,
) -> Option<String> {
    let Takes::Value(_) = parameter.takes else {
        return None;
    };
    let element = parameter.element()?.name();
    let mut used = Vec::new();
    let value = reader
        .expr(argument, &turn.variables, &mut used)
        .filter(|e| e.loops_over(&turn.variables))?;
    let comment = match used.is_empty() {
        true => String::new(),
        false => format!(
            "  # fill in: the file passes {argument}{}",
            reader.taken(&used)
        ),
    };
    Some(format!(
        "  {{ name = {}, scalar = \"{element}\", value = {} }},{comment}\n",
        quoted(name),
        value.toml()
    ))
}

/// What `args` holds for a kernel that takes a parameter pack.
const PACK: &str = "  # fill in: the kernel takes a parameter pack; list one argument per value it is launched with\n";

/// Whether the pointer declared as `written` points to `const` data
/// (`const float *in`, `float const *in`; not `float *const out`).
fn points_to_const(written: &str) -> bool {
    let pointee = written
        .rsplit_once('*')
        .map_or(written, |(before, _)| before);
    pointee
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == "const")
}

#[cfg(test)]
mod tests {
    use super::default_of;
    use std::path::{Path, PathBuf};

    /// Writes `files` (path, text) into a new folder, then drafts the
    /// suite folder `suite` from `source` there: the folder, and the
    /// suite's text or the refusal.
    fn draft(
        files: &[(&str, &str)],
        source: &str,
        suite: &str,
    ) -> (tempfile::TempDir, Result<String, String>) {
        draft_of(files, &[source], suite)
    }

    /// [`draft`] of a suite of several of the files (`sources`).
    fn draft_of(
        files: &[(&str, &str)],
        sources: &[&str],
        suite: &str,
    ) -> (tempfile::TempDir, Result<String, String>) {
        let root = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = root.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let sources: Vec<PathBuf> = sources.iter().map(|s| root.path().join(s)).collect();
        let written = crate::init::write_from(&root.path().join(suite), &sources)
            .map(|path| std::fs::read_to_string(path).unwrap());
        (root, written)
    }

    #[test]
    fn several_files_make_one_ladder_with_names_kept_apart() {
        let mmul = |body: &str| {
            format!(
                "__global__ void matrixMul(const int *a, const int *b, int *c, int N) {{\n\
                 \x20   int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;\n\
                 \x20   {body}\n\
                 }}\n\
                 int main() {{\n\
                 \x20   int N = 1 << 10;\n\
                 \x20   size_t bytes = N * N * sizeof(int);\n\
                 \x20   int *d_a, *d_b, *d_c;\n\
                 \x20   cudaMalloc(&d_a, bytes); cudaMalloc(&d_b, bytes); cudaMalloc(&d_c, bytes);\n\
                 \x20   int THREADS = 32; int BLOCKS = N / THREADS;\n\
                 \x20   dim3 threads(THREADS, THREADS); dim3 blocks(BLOCKS, BLOCKS);\n\
                 \x20   matrixMul<<<blocks, threads>>>(d_a, d_b, d_c, N);\n\
                 }}\n"
            )
        };
        let naive = mmul(
            "int t = 0; for (int k = 0; k < N; k++) t += a[row * N + k] * b[k * N + col]; c[row * N + col] = t;",
        );
        let tiled = mmul(
            "__shared__ int s[1024]; s[threadIdx.y * 32 + threadIdx.x] = a[row * N + col]; __syncthreads(); c[row * N + col] = s[threadIdx.x * 32 + threadIdx.y] + b[row * N + col];",
        );
        let files = [
            ("mm/baseline/mmul.cu", naive.as_str()),
            ("mm/tiled/mmul.cu", tiled.as_str()),
        ];
        let (root, text) = draft_of(
            &files,
            &["mm/baseline/mmul.cu", "mm/tiled/mmul.cu"],
            "suite",
        );
        let text = text.unwrap();
        for expected in [
            "# A starting suite for the kernels of several files, written by `gpuprof init --from`,\n",
            "#   ../mm/baseline/mmul.cu: nvcc compiles it (it defines `main`)\n#   ../mm/tiled/mmul.cu: nvcc compiles it (it defines `main`)\n",
            "name = \"suite\"\n",
            "sizes = [1024]",
            // The same kernel name in both files: each keeps its folder's.
            "baseline = \"matrixMul-baseline\"  # fill in",
            "name = \"matrixMul-tiled\"\nsource = \"../mm/tiled/mmul.cu\"\nentry = \"matrixMul\"\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        let plan = plan(root.path(), "suite");
        assert_eq!(plan.variants.len(), 2);
        assert_eq!(plan.variants[1].instances[0].grid, [32, 32, 1]);

        // Files of their own names: the names stay, a naive one is the
        // baseline wherever it is.
        let files = [
            (
                "t/tiled.cu",
                "__global__ void tiled(float *out, const float *in) { out[threadIdx.x] = in[threadIdx.x]; }\n",
            ),
            (
                "t/naive.cu",
                "__global__ void naive(float *out, const float *in) { out[threadIdx.x] = in[threadIdx.x]; }\n",
            ),
        ];
        let (_root, text) = draft_of(&files, &["t/tiled.cu", "t/naive.cu"], "two");
        let text = text.unwrap();
        assert!(
            text.contains("baseline = \"naive\"  # its name says naive"),
            "{text}"
        );
        assert!(
            text.contains("name = \"tiled\"\nsource = \"../t/tiled.cu\""),
            "{text}"
        );
    }

    fn plan(root: &Path, suite: &str) -> crate::config::Plan {
        let path: PathBuf = root.join(suite).join("variants.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        crate::config::load(&path).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn a_library_header_found_nowhere_makes_device_code_alone_but_not_a_toolkit_one() {
        let source = r#"
            #include <torch/extension.h>
            #include <cusparseLt.h>
            #include "missing_helpers.h"
            __global__ void scale(const float *x, float *y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = 2 * x[i];
            }
        "#;
        let (_root, text) = draft(&[("scale.cu", source)], "scale.cu", "s");
        let text = text.unwrap();
        assert!(
            text.contains("device_only = true  # <torch/extension.h> found nowhere"),
            "{text}"
        );
        assert!(
            text.contains("# fill in: include_dirs = [\"…\"], the folder(s) that hold <cusparseLt.h>, \"missing_helpers.h\": not beside the file"),
            "{text}"
        );
    }

    #[test]
    fn a_size_read_from_a_tensor_or_the_command_line_is_taken_as_n() {
        // `const int N = b.size(1);` holds a size as a parameter would:
        // the grid the file computes from it is read (it was drafted from
        // the block, 8× too many blocks for 128-wide tiles).
        let source = r#"
            template <const int BM = 128, const int BN = 128, const int TM = 8, const int TN = 8>
            __global__ void blocked(float *c, const float *a, int M, int N) {
                int x = blockIdx.x * BN + threadIdx.x * TN, y = blockIdx.y * BM + threadIdx.y * TM;
                c[y * N + x] = a[y * N + x];
            }
            void run(torch::Tensor a, torch::Tensor c) {
                const int M = a.size(0);
                const int N = a.size(1);
                constexpr int BM = 128;
                constexpr int BN = 128;
                dim3 block(BN / 8, BM / 8);
                dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
                blocked<BM, BN, 8, 8><<<grid, block>>>(c.data_ptr<float>(), a.data_ptr<float>(), M, N);
            }
            __global__ void scale(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2.0f; }
            int main(int argc, char **argv) {
                int n = atoi(argv[1]);
                float *x;
                cudaMalloc(&x, n * sizeof(float));
                scale<<<(n + 255) / 256, 256>>>(x, n);
            }
        "#;
        let (_root, text) = draft(&[("r.cu", source)], "r.cu", "r");
        let text = text.unwrap();
        for expected in [
            "grid = [\"cdiv(N, 128)\", \"cdiv(N, 128)\"]  # fill in: from the file's dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM), N, M taken as N\n",
            "grid = [\"cdiv(N * N, 256)\"]  # fill in: from the file's <<<(n + 255) / 256, 256>>>, n taken as N*N\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn each_instance_of_a_template_the_file_launches_in_turn_is_a_variant() {
        // A bank-conflict study: the instances are the ladder. A constant
        // the launch passes that sizes no allocation (`iters`) is its
        // value, not N.
        let source = r#"
            template <int S>
            __global__ void smem_stride(const float *in, float *out, int iters) {
                __shared__ float tile[32 * 33];
                float acc = 0;
                for (int k = 0; k < iters; ++k) acc += tile[(threadIdx.x * S) % (32 * 33)];
                out[blockIdx.x * blockDim.x + threadIdx.x] = acc + in[threadIdx.x];
            }
            template <int T>
            __global__ void tiled(const float *in, float *out, int n) {
                out[blockIdx.x * T + threadIdx.x] = in[threadIdx.x] * n;
            }
            template <int B>
            __global__ void reduce(const float *in, float *out, int n) {
                out[blockIdx.x * B + threadIdx.x] = in[threadIdx.x] * n;
            }
            int main() {
                const int blockSize = 256;
                const int smemBlocks = 2048, iters = 1024;
                float *d_in, *d_out;
                cudaMalloc(&d_in, 32 * 33 * sizeof(float));
                cudaMalloc(&d_out, smemBlocks * blockSize * sizeof(float));
                smem_stride<1><<<smemBlocks, blockSize>>>(d_in, d_out, iters);
                smem_stride<32><<<smemBlocks, blockSize>>>(d_in, d_out, iters);
                smem_stride<33><<<smemBlocks, blockSize>>>(d_in, d_out, iters);
                smem_stride<33><<<smemBlocks, blockSize>>>(d_in, d_out, iters);
                switch (blockSize) {
                case 512: reduce<512><<<smemBlocks, 512>>>(d_in, d_out, iters); break;
                case 256: reduce<256><<<smemBlocks, 256>>>(d_in, d_out, iters); break;
                }
                if (blockSize == 16) {
                    tiled<16><<<smemBlocks, 256>>>(d_in, d_out, iters);
                } else {
                    tiled<32><<<smemBlocks, 256>>>(d_in, d_out, iters);
                }
            }
        "#;
        let (_root, text) = draft(&[("s.cu", source)], "s.cu", "s");
        let text = text.unwrap();
        for expected in [
            "name = \"smem_stride_1\"\nsource = \"../s.cu\"\nentry = \"smem_stride<1>\"",
            "name = \"smem_stride_32\"\nsource = \"../s.cu\"\nentry = \"smem_stride<32>\"",
            "name = \"smem_stride_33\"\nsource = \"../s.cu\"\nentry = \"smem_stride<33>\"",
            "{ name = \"iters\", scalar = \"i32\", value = 1024 },",
            // Chosen by a switch when the program runs: one variant, the
            // other instance noted.
            "name = \"reduce\"\nsource = \"../s.cu\"\nentry = \"reduce<512>\"",
            "# the file also launches reduce<256><<<smemBlocks, 256>>>(d_in, d_out, iters): the instance the program chooses when it runs",
            "name = \"tiled\"\nsource = \"../s.cu\"\nentry = \"tiled<16>\"",
            "# the file also launches tiled<32><<<smemBlocks, 256>>>(d_in, d_out, iters): the instance the program chooses when it runs",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        assert_eq!(text.matches("[[variant]]").count(), 5, "{text}");
    }

    #[test]
    fn where_kernels_disagree_on_the_size_most_of_them_set_it() {
        // Two kernels over n, one over a count of blocks: n is the size,
        // and the third keeps the file's count (it was 1024 for all).
        let source = r#"
            __global__ void offset(float *a, int s) { int i = blockIdx.x * blockDim.x + threadIdx.x + s; a[i] = a[i] + 1; }
            __global__ void stride(float *a, int s) { int i = (blockIdx.x * blockDim.x + threadIdx.x) * s; a[i] = a[i] + 1; }
            __global__ void smem(const float *in, float *out, int iters) {
                __shared__ float tile[1056];
                float acc = 0;
                for (int k = 0; k < iters; ++k) acc += tile[(threadIdx.x * 2 + k) % 1056];
                out[blockIdx.x * blockDim.x + threadIdx.x] = acc + in[threadIdx.x];
            }
            int main() {
                const int blockSize = 256;
                const int n = 4 * 1024 * 1024;
                float *d_a;
                cudaMalloc(&d_a, (size_t)n * 32 * sizeof(float));
                offset<<<n / blockSize, blockSize>>>(d_a, 0);
                stride<<<n / blockSize, blockSize>>>(d_a, 1);
                const int blocks = 2048, iters = 1024;
                float *d_in, *d_out;
                cudaMalloc(&d_in, 1056 * sizeof(float));
                cudaMalloc(&d_out, blocks * blockSize * sizeof(float));
                smem<<<blocks, blockSize>>>(d_in, d_out, iters);
            }
        "#;
        let (_root, text) = draft(&[("b.cu", source)], "b.cu", "b");
        let text = text.unwrap();
        for expected in [
            "sizes = [4194304]",
            "grid = [\"N / 256\"]",
            "{ name = \"a\", buffer = \"f32\", count = \"N * 32\",",
            "grid = [2048]",
            "{ name = \"out\", buffer = \"f32\", count = 524288, output = true },",
            "{ name = \"iters\", scalar = \"i32\", value = 1024 },",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn sizes_and_scalars_held_in_variables_of_one_declaration_are_read() {
        // `size_t sA = (size_t)M * K, sB = …;` sizes the buffers through
        // the command line's defaults; `float alpha = 2.0f, beta = 0.5f;`
        // are the values passed (the counts were N*N to fill in, K's
        // buffers twice too small, and alpha 1).
        let source = r#"
            __global__ void mm(int M, int N, int K, float alpha, const float *A, const float *B, float *C) {
                int r = blockIdx.y * blockDim.y + threadIdx.y;
                int c = blockIdx.x * blockDim.x + threadIdx.x;
                if (r < M && c < N) { float s = 0; for (int k = 0; k < K; ++k) s += A[r * K + k] * B[k * N + c]; C[r * N + c] = alpha * s; }
            }
            int main(int argc, char **argv) {
                int M = argc > 1 ? atoi(argv[1]) : 2048;
                int N = argc > 2 ? atoi(argv[2]) : 2048;
                int K = argc > 3 ? atoi(argv[3]) : 1024;
                size_t sA = (size_t)M * K, sB = (size_t)K * N, sC = (size_t)M * N;
                float alpha = 2.0f, beta = 0.5f;
                float *A, *B, *C;
                cudaMalloc(&A, sA * sizeof(float));
                cudaMalloc(&B, sB * sizeof(float));
                cudaMalloc(&C, sC * sizeof(float));
                dim3 block(32, 32);
                dim3 grid((N + 31) / 32, (M + 31) / 32);
                mm<<<grid, block>>>(M, N, K, beta, A, B, C);
            }
        "#;
        let (_root, text) = draft(&[("m.cu", source)], "m.cu", "m");
        let text = text.unwrap();
        for expected in [
            "sizes = [2048]",
            "{ name = \"K\", scalar = \"i32\", value = 1024 },",
            "{ name = \"alpha\", scalar = \"f32\", value = 0.5 },  # fill in: its value (the file passes beta = 0.5f)",
            "{ name = \"A\", buffer = \"f32\", count = \"N * 1024\", fill = \"random\" },  # the file allocates sA * sizeof(float) for `A`",
            "{ name = \"B\", buffer = \"f32\", count = \"1024 * N\", fill = \"random\" },",
            "{ name = \"C\", buffer = \"f32\", count = \"N * N\", output = true },",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn bytes_passed_as_vectors_of_bytes_count_the_bytes() {
        // `cudaMalloc(&d, n)` passed as `(const uchar4 *)d`: n bytes, as
        // the kernel over chars has (it was 4*N to fill in: four times the
        // bytes the baseline counts).
        let source = r#"
            __global__ void h4(const uchar4 *d, unsigned *bins, long n4) {
                for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)blockDim.x * gridDim.x) {
                    uchar4 v = d[i]; atomicAdd(&bins[v.x], 1u); atomicAdd(&bins[v.w], 1u); }
            }
            int main() {
                long n = 64L << 20;
                unsigned char *d; unsigned *bins;
                cudaMalloc(&d, n);
                cudaMalloc(&bins, 256 * sizeof(unsigned));
                h4<<<1024, 256>>>((const uchar4 *)d, bins, n / 4);
            }
        "#;
        let (_root, text) = draft(&[("h.cu", source)], "h.cu", "h");
        let text = text.unwrap();
        for expected in [
            "{ name = \"d\", buffer = \"u8\", count = \"N\", fill = \"random\" },",
            "{ name = \"n4\", scalar = \"i64\", value = \"N / 4\" },",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_constant_passed_beside_the_size_is_its_value_not_n() {
        // A mask's width beside the array's length: the grid covers the
        // length, so it is the size; the width is 7, and so is its buffer.
        let source = r#"
            #define MASK_WIDTH 7
            #define LEN (1 << 22)
            __global__ void conv1d(const float *in, const float *mask, float *out, int mask_width, int width) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                float acc = 0;
                for (int j = 0; j < mask_width; j++) acc += in[i + j] * mask[j];
                if (i < width) out[i] = acc;
            }
            int main() {
                float *d_in, *d_mask, *d_out;
                cudaMalloc(&d_in, LEN * sizeof(float));
                cudaMalloc(&d_mask, MASK_WIDTH * sizeof(float));
                cudaMalloc(&d_out, LEN * sizeof(float));
                conv1d<<<(LEN + 255) / 256, 256>>>(d_in, d_mask, d_out, MASK_WIDTH, LEN);
            }
        "#;
        let (_root, text) = draft(&[("c.cu", source)], "c.cu", "c");
        let text = text.unwrap();
        for expected in [
            "sizes = [4194304]",
            "{ name = \"mask\", buffer = \"f32\", count = 7, fill = \"random\" },  # the file allocates MASK_WIDTH * sizeof(float) for `d_mask`",
            "{ name = \"mask_width\", scalar = \"i32\", value = 7 },",
            "{ name = \"width\", scalar = \"i32\", value = \"N\" },",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_constant_stride_is_a_factor_of_the_count_not_a_side_of_a_matrix() {
        // A coalescing study: the strided kernel reads in[i * stride] of
        // n * kStride elements. kStride (32) spaces the reads; taken as a
        // second side it made the problem N×N (the copy over N*N
        // elements, N = 1024 instead of the file's n).
        let source = r#"
            constexpr int kStride = 32;
            __global__ void copy(const float *in, float *out, int n) {
                for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = in[i];
            }
            __global__ void strided(const float *in, float *out, int n, int stride) {
                for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = in[i * stride];
            }
            int main() {
                const int n = 1 << 20;
                const int total = n * kStride;
                float *in, *out;
                cudaMalloc(&in, total * sizeof(float));
                cudaMalloc(&out, n * sizeof(float));
                const int blocks = (n + 255) / 256;
                copy<<<blocks, 256>>>(in, out, n);
                strided<<<blocks, 256>>>(in, out, n, kStride);
            }
        "#;
        let (_root, text) = draft(&[("s.cu", source)], "s.cu", "s");
        let text = text.unwrap();
        assert!(!text.contains("N×N"), "{text}");
        assert!(!text.contains("N * N"), "{text}");
        for expected in [
            "sizes = [1048576]",
            "{ name = \"in\", buffer = \"f32\", count = \"N * 32\", fill = \"random\" },  # the file allocates total * sizeof(float) for `in`",
            "{ name = \"out\", buffer = \"f32\", count = \"N\", output = true },",
            "{ name = \"stride\", scalar = \"i32\", value = 32 },",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        // A row's length, with a column added, is a side.
        let pointers = ["a".to_string()];
        assert!(crate::config::kernels::only_strides_an_index(
            "{ x = a[i * s]; y = a[(j) * s]; }",
            "s",
            &pointers
        ));
        for body in [
            "{ x = a[row * cols + c]; }",
            "{ if (i < s) x = a[i * s]; }",
            "{ x = a[i + s]; }",
            "{ x = b[i * s]; }",
        ] {
            assert!(
                !crate::config::kernels::only_strides_an_index(body, "s", &pointers),
                "{body}"
            );
        }
    }

    #[test]
    fn a_kernel_that_spaces_its_reads_is_not_compared_with_one_that_does_not() {
        // The strided kernel copies every 32nd element: another output than
        // the coalesced one's, not the same computed another way (on an
        // H100 the study's strided copy was shown wrong beside it). Passed
        // a stride of 1 it would copy the same elements, and is compared.
        let source = |stride: &str| {
            format!(
                r#"
                __global__ void coalesced(const float *in, float *out, int n) {{
                    int i = blockIdx.x * blockDim.x + threadIdx.x;
                    if (i < n) out[i] = in[i];
                }}
                __global__ void strided(const float *in, float *out, int n, int stride) {{
                    int i = blockIdx.x * blockDim.x + threadIdx.x;
                    if (i < n) out[i] = in[i * stride];
                }}
                int main() {{
                    const int n = 1 << 20;
                    const int step = {stride};
                    float *in, *out;
                    cudaMalloc(&in, n * step * sizeof(float));
                    cudaMalloc(&out, n * sizeof(float));
                    coalesced<<<(n + 255) / 256, 256>>>(in, out, n);
                    strided<<<(n + 255) / 256, 256>>>(in, out, n, step);
                }}
            "#
            )
        };
        let (_root, text) = draft(&[("s.cu", &source("32"))], "s.cu", "s");
        let text = text.unwrap();
        assert!(
            text.contains("entry = \"strided\"\nverify = \"none\"  # its `stride` (32) spaces the elements it reads, which the baseline reads one after another: it computes another output, so it is timed and profiled but not compared\n"),
            "{text}"
        );
        let (_root, text) = draft(&[("s.cu", &source("1"))], "s.cu", "s");
        let text = text.unwrap();
        assert!(!text.contains("verify = \"none\""), "{text}");
    }

    #[test]
    fn a_kernel_handed_to_a_timing_wrapper_is_launched_through_its_pointer() {
        // `runKernel(vectorAdd, d_a, d_b, d_c, N)`: the wrapper launches
        // its function-pointer parameter, so each kernel its calls hand it
        // is launched there, with the caller's buffers and size.
        let source = r#"
            #define N 1000000
            __global__ void add(float *a, float *b, float *c, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) c[i] = a[i] + b[i];
            }
            __global__ void add_unrolled(float *a, float *b, float *c, int n) {
                int i = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
                if (i < n) c[i] = a[i] + b[i];
                if (i + 1 < n) c[i + 1] = a[i + 1] + b[i + 1];
            }
            float runKernel(void (*kernel)(float*, float*, float*, int), float *d_a, float *d_b, float *d_c, int n) {
                int blocks = (n + 255) / 256;
                kernel<<<blocks, 256>>>(d_a, d_b, d_c, n);
                return 0.0f;
            }
            int main() {
                float *d_a, *d_b, *d_c;
                cudaMalloc(&d_a, N * sizeof(float));
                cudaMalloc(&d_b, N * sizeof(float));
                cudaMalloc(&d_c, N * sizeof(float));
                runKernel(add, d_a, d_b, d_c, N);
                runKernel(add_unrolled, d_a, d_b, d_c, N);
            }
        "#;
        let (_root, text) = draft(&[("w.cu", source)], "w.cu", "w");
        let text = text.unwrap();
        for expected in [
            "block = [256]  # from the file's <<<blocks, 256>>>; add is launched through the pointer `kernel`\n",
            "block = [256]  # from the file's <<<blocks, 256>>>; add_unrolled is launched through the pointer `kernel`\n",
            "{ name = \"c\", buffer = \"f32\", count = \"N\", output = true },  # the file allocates N * sizeof(float) for `d_c`\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        assert!(
            !text.contains("does not say whether with this kernel"),
            "{text}"
        );
    }

    #[test]
    fn a_constant_the_launch_uses_as_its_block_is_a_tile_not_the_size() {
        // llm.c's flash attention: `dim3 block_dim(Br)` over `const int Br
        // = 32;`, the kernel reading rows `i * Br + tx`. Br is the tile's
        // height, passed as 32, and the block is 32 threads (it was drafted
        // as N: a block of 1024 threads and shared memory that grew with N,
        // past any GPU's).
        let source = r#"
            __global__ void tiles(const float *q, float *out, int N, int d, int Tc, int Tr, int Bc, int Br) {
                int tx = threadIdx.x;
                for (int i = 0; i < Tr; i++) {
                    if (i * Br + tx >= N) break;
                    out[(i * Br + tx) * d] = q[(Br * i) + tx] * Tc * Bc;
                }
            }
            void attention(float *out, float *q, int T, int C) {
                const int Bc = 32;
                const int Br = 32;
                const int N = T;
                const int d = C / 12;
                const int Tc = ceil((float) N / Bc);
                const int Tr = ceil((float) N / Br);
                dim3 grid_dim(8, 12);
                dim3 block_dim(Br);
                tiles<<<grid_dim, block_dim>>>(q, out, N, d, Tc, Tr, Bc, Br);
            }
            int main() {
                int T = 1024, C = 768;
                float *q, *out;
                cudaMalloc(&q, T * C * sizeof(float));
                cudaMalloc(&out, T * C * sizeof(float));
                attention(out, q, T, C);
            }
        "#;
        let (_root, text) = draft(&[("r.cu", source)], "r.cu", "r");
        let text = text.unwrap();
        for expected in [
            "block = [32]\n",
            "{ name = \"Br\", scalar = \"i32\", value = 32 },",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_size_read_from_a_configurations_member_is_drafted_at_its_default() {
        // The options struct of a header the file includes from another
        // folder gives `size` a default the command line may override:
        // the draft runs at it (it was 1024, to fill in), through
        // std::max too; a member two types default differently, or a
        // member function's result, is not read.
        let source = r#"
            #include "opts/options.h"
            __global__ void scale(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2.0f; }
            void run(const Options &options) {
                const int n = std::max(256, options.size);
                float *x;
                cudaMalloc(&x, n * sizeof(float));
                scale<<<(n + 255) / 256, 256>>>(x, n);
            }
            int main(int argc, char **argv) { Options options{}; parse(argc, argv, options); run(options); }
        "#;
        let header = "#pragma once\nstruct Options {\n  int size = 1 << 14;\n  int seed = 7;\n  bool check = false;\n};\n";
        let files = [("src/s.cu", source), ("include/opts/options.h", header)];
        let (_root, text) = draft(&files, "src/s.cu", "s");
        let text = text.unwrap();
        assert!(text.contains("sizes = [16384]"), "{text}");

        let mut scanned = crate::config::kernels::scan(
            "int main() { const int a = cfg.size; const int b = v.size(); const int c = o->width; }",
        );
        let defaults: Vec<(String, String)> = crate::config::kernels::scan(
            "struct A { int size = 64; int width = 8; int rows = 0; void f() { int local = 3; } }; struct B { int width = 9; };",
        )
        .member_defaults;
        assert_eq!(
            defaults,
            [("size", "64"), ("width", "8"), ("width", "9")]
                .map(|(n, d)| (n.to_string(), d.to_string()))
        );
        scanned.read_members_at_their_defaults(&defaults);
        assert_eq!(
            scanned.initializers,
            [
                ("a", "cfg.size"),
                ("b", "v.size()"),
                ("c", "o->width"),
                ("cfg.size", "64")
            ]
            .map(|(n, d)| (n.to_string(), d.to_string()))
        );
    }

    #[test]
    fn a_side_worked_out_from_the_size_follows_n_apart_from_it() {
        // A transpose of width × height, height three quarters of the
        // width: height was taken as N too, so the draft was square and
        // its buffers' counts were left to fill in.
        let source = r#"
            __global__ void transpose(const float *in, float *out, int width, int height) {
                int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
                if (x < width && y < height) out[x * height + y] = in[y * width + x];
            }
            int main() {
                int size = 1 << 12;
                const int width = size;
                const int height = std::max(2, size - size / 4);
                float *in, *out;
                cudaMalloc(&in, (size_t)width * height * sizeof(float));
                cudaMalloc(&out, (size_t)width * height * sizeof(float));
                dim3 threads(16, 16);
                dim3 blocks((width + 15) / 16, (height + 15) / 16);
                transpose<<<blocks, threads>>>(in, out, width, height);
            }
        "#;
        let (root, text) = draft(&[("t.cu", source)], "t.cu", "t");
        let text = text.unwrap();
        for expected in [
            "sizes = [4096]",
            "grid = [\"cdiv(N, 16)\", \"cdiv(max(2, N - floor(N / 4)), 16)\"]",
            "{ name = \"in\", buffer = \"f32\", count = \"N * max(2, N - floor(N / 4))\", fill = \"random\" },  # the file allocates (size_t)width * height * sizeof(float) for `in`",
            "{ name = \"width\", scalar = \"i32\", value = \"N\" },",
            "{ name = \"height\", scalar = \"i32\", value = \"max(2, N - floor(N / 4))\" },",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        assert_eq!(
            plan(root.path(), "t").variants[0].instances[0].grid,
            [256, 192, 1]
        );
    }

    #[test]
    fn sides_both_worked_out_from_a_configured_size_make_one_problem() {
        // width and height each from options.size (both known numbers, so
        // two sizes, 4096 and 3584: the draft fell back to a square 1024),
        // passed through a wrapper that allocates by a vector's size.
        let source = r#"
            #include <vector>
            constexpr int kTile = 32;
            struct Options { int size = 1 << 12; };
            __global__ void transpose(const float *in, float *out, int width, int height) {
                int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
                if (x < width && y < height) out[x * height + y] = in[y * width + x];
            }
            void run(const std::vector<float> &input, int width, int height) {
                const size_t bytes = input.size() * sizeof(float);
                float *in, *out;
                cudaMalloc(&in, bytes);
                cudaMalloc(&out, bytes);
                dim3 threads(kTile, kTile);
                dim3 blocks((width + kTile - 1) / kTile, (height + kTile - 1) / kTile);
                transpose<<<blocks, threads>>>(in, out, width, height);
            }
            int main() {
                Options options{};
                const int width = std::max(kTile, options.size);
                const int height = std::max(kTile, options.size - options.size / 8);
                std::vector<float> input(width * height);
                run(input, width, height);
            }
        "#;
        let (_root, text) = draft(&[("w.cu", source)], "w.cu", "w");
        let text = text.unwrap();
        for expected in [
            "sizes = [4096]",
            "grid = [\"cdiv(N, 32)\", \"cdiv(max(32, N - floor(N / 8)), 32)\"]",
            "{ name = \"height\", scalar = \"i32\", value = \"max(32, N - floor(N / 8))\" },",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        // A count made of a few streams' shares is no side of the streams'
        // count: the problem is not N = nStreams.
        let streams = r#"
            __global__ void kernel(float *a, int offset) { int i = offset + blockIdx.x * blockDim.x + threadIdx.x; a[i] = a[i] + 1.0f; }
            int main() {
                const int blockSize = 256, nStreams = 4;
                const int n = 4 * 1024 * blockSize * nStreams;
                float *d_a;
                cudaMalloc(&d_a, n * sizeof(float));
                kernel<<<n / blockSize, blockSize>>>(d_a, 0);
            }
        "#;
        let (_root, text) = draft(&[("s.cu", streams)], "s.cu", "s");
        let text = text.unwrap();
        assert!(!text.contains("sizes = [4]"), "{text}");
    }

    #[test]
    fn counts_follow_long_chains_of_initializers_and_the_launchs_own_allocation() {
        // `out` holds na + nb, each worked out through std::max from the
        // one before: six names deep, past what was followed (it was
        // drafted as N, and the kernel wrote past it). A later function
        // allocates `da` for a benchmark of its own: the launch's buffer
        // is the one its own function allocates.
        let source = r#"
            __global__ void merge(const int *a, int na, const int *b, int nb, int *out) {
                int idx = blockIdx.x * blockDim.x + threadIdx.x;
                if (idx < na + nb) out[idx] = idx < na ? a[idx] : b[idx - na];
            }
            void check(int size) {
                int na = std::max(8, size / 2);
                int nb = std::max(8, size - na);
                int *da, *db, *dout;
                cudaMalloc(&da, na * sizeof(int));
                cudaMalloc(&db, nb * sizeof(int));
                cudaMalloc(&dout, (na + nb) * sizeof(int));
                merge<<<(na + nb + 255) / 256, 256>>>(da, na, db, nb, dout);
            }
            void bench() {
                int *da;
                cudaMalloc(&da, 100 * sizeof(int));
            }
            int main() { int size = 1 << 12; check(size); bench(); }
        "#;
        let (_root, text) = draft(&[("m.cu", source)], "m.cu", "m");
        let text = text.unwrap();
        for expected in [
            "sizes = [2048]",
            "{ name = \"a\", buffer = \"i32\", count = \"N\", fill = \"random\" },  # the file allocates na * sizeof(int) for `da`",
            "{ name = \"b\", buffer = \"i32\", count = \"N\", fill = \"random\" },  # the file allocates nb * sizeof(int) for `db`",
            "{ name = \"out\", buffer = \"i32\", count = \"N + N\", output = true },  # the file allocates (na + nb) * sizeof(int) for `dout`",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_size_the_command_line_may_override_is_drafted_at_the_files_default() {
        // `argc > 1 ? atoi(argv[1]) : 4096` runs at 4096 without
        // arguments, as `int n = 4096; if (argc > 1) n = atoi(argv[1]);`
        // does: the draft's size (it was 1024, to fill in).
        let source = r#"
            __global__ void scale(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2.0f; }
            int main(int argc, char **argv) {
                const int n = (argc > 1) ? std::atoi(argv[1]) : (1 << 20);
                float *x;
                cudaMalloc(&x, n * sizeof(float));
                scale<<<(n + 255) / 256, 256>>>(x, n);
            }
        "#;
        let (_root, text) = draft(&[("r.cu", source)], "r.cu", "r");
        let text = text.unwrap();
        assert!(text.contains("sizes = [1048576]"), "{text}");
        assert_eq!(default_of("argc > 1 ? 7 : atoi(argv[1])"), "7");
        assert_eq!(default_of("a ? b : c"), "a ? b : c");
        assert_eq!(
            default_of("flag ? atoi(argv[1]) : atoi(argv[2])"),
            "flag ? atoi(argv[1]) : atoi(argv[2])"
        );
    }

    #[test]
    fn a_void_pointer_the_kernel_reads_through_one_cast_is_a_buffer_of_that_type() {
        // A DRAM-bandwidth microbenchmark: untyped pointers, read and
        // written as uint4; one cast two ways stays untyped.
        let source = r#"
            __global__ void copy_kernel(const void *x, void *y, void *z) {
                unsigned idx = blockIdx.x * blockDim.x + threadIdx.x;
                const uint4 *ldg_ptr = (const uint4 *)x + idx;
                uint4 *stg_ptr = reinterpret_cast<uint4 *>(y) + idx;
                stg_ptr[0] = ldg_ptr[0];
                ((float *)z)[idx] = ((int *)z)[idx];
            }
        "#;
        let (_root, text) = draft(&[("b.cu", source)], "b.cu", "b");
        let text = text.unwrap();
        for expected in [
            "# types read from the casts the kernel reads its untyped pointers through: `const void *` is used as `const uint4 *`, `void *` is used as `uint4 *`\n",
            "{ name = \"x\", buffer = \"u32\", count = \"4*N\", fill = \"random\" },  # fill in: its element count, 4 to each `const uint4`",
            "# fill in: `void *z` is a pointer to a type gpuprof cannot make",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_pointer_to_a_struct_of_one_scalar_type_in_a_header_is_a_buffer_of_it() {
        // BBuf's complex-half GEMV: the struct, with its constructor and
        // operators, is in a header beside the file.
        let header = r#"
            #include <cuda_fp16.h>
            struct cuHalfComplex {
                half r;
                half i;
                __host__ __device__ __forceinline__ cuHalfComplex(half a, half b) : r(a), i(b) {}
                __device__ __forceinline__ cuHalfComplex operator+(const cuHalfComplex& a) {
                    return cuHalfComplex(r + a.r, i + a.i);
                }
            };
        "#;
        let source = r#"
            #include "cuHalfComplex.cuh"
            __global__ void twice(cuHalfComplex *__restrict__ x, cuHalfComplex *__restrict__ y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = x[i] + x[i];
            }
        "#;
        let (_root, text) = draft(
            &[("k.cu", source), ("cuHalfComplex.cuh", header)],
            "k.cu",
            "c",
        );
        let text = text.unwrap();
        assert!(
            text.contains("{ name = \"x\", buffer = \"f16\", count = \"2*N\", fill = \"random\" }"),
            "{text}"
        );
        assert!(!text.contains("cannot make"), "{text}");
    }

    #[test]
    fn each_launch_reads_the_constants_of_its_own_host_function() {
        // Two launchers that each define BM and BN (LeetCUDA's sgemm.cu):
        // the first launch's block is its own 32×32, not the second
        // function's 128×128 (16384 threads, which CUDA refuses).
        let source = r#"
            template <const int BM = 32, const int BN = 32>
            __global__ void tiled(float *c, const float *a, int n) {
                __shared__ float s[BM][BN];
                int x = blockIdx.x * BN + threadIdx.x, y = blockIdx.y * BM + threadIdx.y;
                s[threadIdx.y][threadIdx.x] = a[y * n + x];
                __syncthreads();
                c[y * n + x] = s[threadIdx.x][threadIdx.y];
            }
            template <const int BM = 128, const int BN = 128, const int TM = 8, const int TN = 8>
            __global__ void blocked(float *c, const float *a, int n) {
                int x = blockIdx.x * BN + threadIdx.x * TN, y = blockIdx.y * BM + threadIdx.y * TM;
                c[y * n + x] = a[y * n + x];
            }
            void run_tiled(float *c, const float *a, int n) {
                constexpr int BM = 32;
                constexpr int BN = 32;
                dim3 block(BN, BM);
                dim3 grid((n + BN - 1) / BN, (n + BM - 1) / BM);
                tiled<BM, BN><<<grid, block>>>(c, a, n);
            }
            void run_blocked(float *c, const float *a, int n) {
                constexpr int BM = 128;
                constexpr int BN = 128;
                constexpr int TM = 8;
                constexpr int TN = 8;
                dim3 block(BN / TN, BM / TM);
                dim3 grid((n + BN - 1) / BN, (n + BM - 1) / BM);
                blocked<BM, BN, TM, TN><<<grid, block>>>(c, a, n);
            }
        "#;
        let (_root, text) = draft(&[("g.cu", source)], "g.cu", "g");
        let text = text.unwrap();
        for expected in [
            "entry = \"tiled<32, 32>\"",
            "block = [32, 32]",
            "entry = \"blocked<128, 128, 8, 8>\"",
            "block = [16, 16]",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        assert!(!text.contains("block = [128, 128]"), "{text}");
    }

    #[test]
    fn a_flat_kernel_over_m_by_n_takes_each_side_as_n() {
        // A copy and a row-read transpose that index M×N elements through
        // one index, beside a 2-D kernel: M and N are each N (as N*N, the
        // grid the file computes from them covered N⁴ elements and the
        // transpose wrote far past its buffer); a count the body only
        // compares with stays N*N.
        let source = r#"
            __global__ void copy_kernel(float *out, const float *in, size_t M, size_t N) {
                size_t idx = blockDim.x * blockIdx.x + threadIdx.x;
                if (idx < M * N) out[idx] = in[idx];
            }
            __global__ void transpose_row(float *out, const float *in, size_t M, size_t N) {
                size_t idx = blockDim.x * blockIdx.x + threadIdx.x;
                size_t m = idx / N, n = idx % N;
                if (m < M && n < N) out[n * M + m] = in[m * N + n];
            }
            __global__ void scale(float *out, const float *in, int total) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < total) out[i] = 2.0f * in[i];
            }
            __global__ void tiled(float *out, const float *in, int M, int N) {
                int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
                if (x < N && y < M) out[x * M + y] = in[y * N + x];
            }
            void run_copy(float *out, const float *in, size_t M, size_t N) {
                size_t grid = (M * N + 255) / 256;
                copy_kernel<<<grid, 256>>>(out, in, M, N);
            }
            void run_row(float *out, const float *in, size_t M, size_t N) {
                size_t grid = (M * N + 255) / 256;
                transpose_row<<<grid, 256>>>(out, in, M, N);
            }
            void run_scale(float *out, const float *in, int total) {
                scale<<<(total + 255) / 256, 256>>>(out, in, total);
            }
            void run_tiled(float *out, const float *in, int M, int N) {
                dim3 block(16, 16);
                dim3 grid{(N + 15) / 16, (M + 15) / 16};
                tiled<<<grid, block>>>(out, in, M, N);
            }
        "#;
        let (_root, text) = draft(&[("k.cu", source)], "k.cu", "s");
        let text = text.unwrap();
        let section = |name: &str| {
            let start = text.find(&format!("name = \"{name}\"")).unwrap();
            let end = text[start + 1..]
                .find("[[variant]]")
                .map_or(text.len(), |e| start + 1 + e);
            text[start..end].to_string()
        };
        for flat in ["copy_kernel", "transpose_row"] {
            let section = section(flat);
            for side in ["M", "N"] {
                assert!(
                    section.contains(&format!(
                        "{{ name = \"{side}\", scalar = \"u64\", value = \"N\" }}"
                    )),
                    "{section}"
                );
            }
            assert!(
                section.contains("grid = [\"cdiv(N * N, 256)\"]"),
                "{section}"
            );
        }
        let scale = section("scale");
        assert!(
            scale.contains("{ name = \"total\", scalar = \"i32\", value = \"N*N\" }"),
            "{scale}"
        );
    }

    #[test]
    fn a_dim3_declared_further_down_in_another_function_is_not_this_launchs_grid() {
        let source = r#"
            __global__ void flat(float *out, const float *in, size_t n) {
                size_t i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) out[i] = in[i];
            }
            __global__ void tiled(float *out, const float *in, int n) {
                int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
                if (x < n && y < n) out[y * n + x] = in[y * n + x];
            }
            void run_flat(float *out, const float *in, size_t n) {
                size_t grid = (n + 255) / 256;
                flat<<<grid, 256>>>(out, in, n);
            }
            void run_tiled(float *out, const float *in, int n) {
                dim3 block(16, 16);
                dim3 grid{(n + 15) / 16, (n + 15) / 16};
                tiled<<<grid, block>>>(out, in, n);
            }
        "#;
        let (_root, text) = draft(&[("k.cu", source)], "k.cu", "s");
        let text = text.unwrap();
        let flat =
            &text[text.find("name = \"flat\"").unwrap()..text.find("name = \"tiled\"").unwrap()];
        assert!(
            flat.contains(
                "grid = [\"cdiv(N * N, 256)\"]  # fill in: from the file's <<<grid, 256>>>"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_copy_among_other_kernels_is_the_ceiling_and_not_the_baseline() {
        let transposes = r#"
            __global__ void copy_kernel(float *out, const float *in, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n * n) out[i] = in[i];
            }
            __global__ void transpose_row(float *out, const float *in, int n) {
                int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
                if (x < n && y < n) out[x * n + y] = in[y * n + x];
            }
            __global__ void transpose_col(float *out, const float *in, int n) {
                int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
                if (x < n && y < n) out[y * n + x] = in[x * n + y];
            }
        "#;
        let (root, text) = draft(&[("t.cu", transposes)], "t.cu", "s");
        let text = text.unwrap();
        assert!(
            text.contains("baseline = \"transpose_row\"  # fill in"),
            "{text}"
        );
        let copy = &text[text.find("name = \"copy_kernel\"").unwrap()..];
        let copy = &copy[..copy.find("[[variant]]").unwrap()];
        assert!(
            copy.contains("role = \"ceiling\"  # its name says copy")
                && copy.contains("verify = \"none\"  # a copy's output is not the others' answer"),
            "{text}"
        );
        let plan = plan(root.path(), "s");
        assert_eq!(plan.variants[0].role, crate::model::variant::Role::Ceiling);
        // Copies alone: none is a ceiling.
        let copies = r#"
            __global__ void copy_kernel(float *out, const float *in, int n) { out[threadIdx.x] = in[threadIdx.x]; }
            __global__ void vectorized_copy(float4 *out, const float4 *in, int n) { out[threadIdx.x] = in[threadIdx.x]; }
        "#;
        let (_root, text) = draft(&[("c.cu", copies)], "c.cu", "s");
        assert!(!text.unwrap().contains("ceiling"));
    }

    #[test]
    fn kernels_that_sum_floats_are_compared_at_a_tolerance_for_rounding() {
        let tolerance = "tolerance = { rel = 1e-4, abs = 1e-4 }  # the kernels sum floats";
        let reductions = r#"
            __device__ float warp_sum(float v) {
                for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
                return v;
            }
            __global__ void sum_naive(const float *x, float *y, int n) {
                float s = 0;
                for (int i = threadIdx.x; i < n; i += blockDim.x) s += x[i];
                atomicAdd(y, s);
            }
            __global__ void sum_shuffle(const float *x, float *y, int n) {
                float v = warp_sum(x[blockIdx.x * blockDim.x + threadIdx.x]);
                if (threadIdx.x % 32 == 0) atomicAdd(y, v);
            }
        "#;
        let (_root, text) = draft(&[("sum.cu", reductions)], "sum.cu", "s");
        let text = text.unwrap();
        assert_eq!(text.matches(tolerance).count(), 1, "{text}");
        let shuffle = text.find("name = \"sum_shuffle\"").unwrap();
        assert!(text.find(tolerance).unwrap() > shuffle, "{text}");
        // Copies sum nothing; half-precision outputs keep their default.
        let copies = r#"
            __global__ void copy_naive(const float *x, float *y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = x[i];
            }
            __global__ void copy_wide(const float *x, float *y, int n) {
                for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = x[i];
            }
            __global__ void half_naive(const __half *x, __half *y, int n) {
                __half s = 0;
                for (int i = 0; i < n; ++i) s += x[i];
                y[0] = s;
            }
            __global__ void half_sum(const __half *x, __half *y, int n) {
                __half s = 0;
                for (int i = 0; i < n; ++i) s += x[i];
                y[0] = s;
            }
        "#;
        let (_root, text) = draft(&[("c.cu", copies)], "c.cu", "s");
        assert!(!text.unwrap().contains("tolerance ="));
    }

    #[test]
    fn pointers_are_inputs_outputs_or_both_by_what_the_body_does() {
        let source = r#"
            __global__ void k(float *reads, float *writes, float *both, int *counts,
                              float *moved, float *handed, const float *constant,
                              float *unused, int n)
            {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                moved += n;
                writes[i] = reads[i] + moved[i] + constant[i];
                both[i] = 2.0f * both[i];
                atomicAdd(&counts[i % 16], 1);
                helper(handed, i);
            }
        "#;
        let (_root, text) = draft(&[("k.cu", source)], "k.cu", "s");
        let text = text.unwrap();
        for line in [
            "{ name = \"reads\", buffer = \"f32\", count = \"N\", fill = \"random\" },  # fill in: its element count (the kernel only reads it)",
            "{ name = \"writes\", buffer = \"f32\", count = \"N\", output = true },  # fill in: its element count\n",
            "{ name = \"both\", buffer = \"f32\", count = \"N\", output = true, fill = \"random\" },  # fill in: its element count (the kernel reads and writes it: filled, then compared)",
            // Only added to (`atomicAdd(&counts[i % 16], 1)`): from zero.
            "{ name = \"counts\", buffer = \"i32\", count = \"N\", output = true, fill = \"zeros\" },  # fill in: its element count; the kernel only adds to it with atomics: filled with zeros, then compared\n",
            "{ name = \"moved\", buffer = \"f32\", count = \"N\", fill = \"random\" },  # fill in: its element count (the kernel only reads it)",
            "{ name = \"handed\", buffer = \"f32\", count = \"N\", output = true, fill = \"random\" },  # fill in: its element count (the kernel hands `handed` on where gpuprof cannot follow it: filled, then compared",
            "{ name = \"constant\", buffer = \"f32\", count = \"N\", fill = \"random\" },  # fill in: its element count\n",
            "{ name = \"unused\", buffer = \"f32\", count = \"N\", fill = \"random\" },  # fill in: its element count (the kernel does not use it)",
        ] {
            assert!(text.contains(line), "{line}\n{text}");
        }
        // A declaration without a body is left as before.
        let (_root, text) = draft(&[("d.cu", "__global__ void d(float *x);")], "d.cu", "s");
        assert!(
            text.unwrap().contains("output = true, fill = \"random\" },  # fill in: its element count (filled, then compared, which holds whatever the kernel does with it"),
        );
    }

    #[test]
    fn a_half_precision_step_verifies_against_a_float_baseline_and_an_integer_one_does_not() {
        let source = r#"
            #include <cuda_fp16.h>
            __global__ void scale_naive(const float *x, float *y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = 2.0f * x[i];
            }
            __global__ void scale_half(const __half *x, __half *y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = __hmul(__float2half(2.0f), x[i]);
            }
            __global__ void scale_int(const float *x, int *y, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = (int)(2.0f * x[i]);
            }
        "#;
        let (root, text) = draft(&[("s.cu", source)], "s.cu", "s");
        let text = text.unwrap();
        let half = text.split("entry = \"scale_half\"").nth(1).unwrap();
        let half = half.split("[[variant]]").next().unwrap();
        assert!(!half.contains("verify"), "{half}");
        assert!(
            text.contains("verify = \"none\"  # its outputs are not of the baseline's types (y is i32 here, f32 there): only two float types compare\n"),
            "{text}"
        );
        plan(root.path(), "s");
    }

    #[test]
    fn a_constant_array_the_kernel_reads_becomes_a_symbol_buffer() {
        let source = r#"
            #define RADIUS 8
            #define LENGTH (2 * RADIUS + 1)
            __constant__ float c_Kernel[LENGTH];
            __device__ int counts[4];
            __global__ void rows(float *out, const float *in, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                float sum = 0;
                for (int j = 0; j < LENGTH; j++) sum += c_Kernel[j] * in[i + j];
                out[i] = sum;
                atomicAdd(&counts[0], 1);
            }
        "#;
        let (root, text) = draft(&[("c.cu", source)], "c.cu", "s");
        let text = text.unwrap();
        assert!(
            text.contains("  { name = \"c_Kernel\", buffer = \"f32\", count = 17, fill = \"random\", symbol = \"c_Kernel\" },  # the kernel reads the module's float c_Kernel[LENGTH]: gpuprof fills it before each launch\n"),
            "{text}"
        );
        // Written by the kernel: no input to fill.
        assert!(!text.contains("symbol = \"counts\""), "{text}");
        plan(root.path(), "s");
    }

    #[test]
    fn constants_of_the_files_own_headers_size_its_launches() {
        let source = r#"
            #include "common.h"
            __global__ void scale(float *x, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] = 2.0f * x[i];
            }
            void run(float *x, int n) { scale<<<n / BLOCK, BLOCK>>>(x, n); }
        "#;
        let files = [
            ("src/scale.cu", source),
            (
                "src/common.h",
                "#pragma once\n#define BLOCK 64 // threads per block\n",
            ),
        ];
        let (_root, text) = draft(&files, "src/scale.cu", "s");
        let text = text.unwrap();
        assert!(text.contains("block = [64]"), "{text}");
    }

    #[test]
    fn narrow_and_half_precision_parameters_get_their_own_element_types() {
        let source = r#"
            #include <cuda_fp16.h>
            #include <cuda_bf16.h>
            __global__ void histogram(const unsigned char *pixels, unsigned int *bins, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) atomicAdd(&bins[pixels[i]], 1u);
            }
            __global__ void scale(__half *x, __half factor, const __nv_bfloat16 *y, short s) {
                int i = threadIdx.x;
                x[i] = __hmul(x[i], factor);
            }
        "#;
        let (_root, text) = draft(&[("h.cu", source)], "h.cu", "s");
        let text = text.unwrap();
        for line in [
            "{ name = \"pixels\", buffer = \"u8\"",
            "{ name = \"bins\", buffer = \"u32\"",
            "{ name = \"x\", buffer = \"f16\"",
            "{ name = \"factor\", scalar = \"f16\", value = 1 }",
            "{ name = \"y\", buffer = \"bf16\"",
            "{ name = \"s\", scalar = \"i16\", value = 1 }",
        ] {
            assert!(text.contains(line), "{line}\n{text}");
        }
    }

    #[test]
    fn a_two_dimensional_block_over_a_one_dimensional_grid_is_a_one_dimensional_problem() {
        // A warp per row, the rows of a block in threadIdx.y (llm.c's
        // LayerNorm kernel 6): the grid covers rows, one dimension.
        let source = r#"
            __global__ void rows(float *out, const float *in, int n, int c) {
                int row = blockIdx.x * blockDim.y + threadIdx.y;
                if (row < n) out[row * c + threadIdx.x] = in[row * c + threadIdx.x];
            }
            int main() {
                int n = 4096;
                float *out, *in;
                cudaMalloc(&out, n * 32 * sizeof(float));
                cudaMalloc(&in, n * 32 * sizeof(float));
                rows<<<(n + 7) / 8, dim3(32, 8)>>>(out, in, n, 32);
            }
        "#;
        let (_root, text) = draft(&[("r.cu", source)], "r.cu", "s");
        let text = text.unwrap();
        assert!(!text.contains("N×N"), "{text}");
        // The counts are what the file allocates: a row of 32 per N.
        assert!(
            text.contains("{ name = \"out\", buffer = \"f32\", count = \"N * 32\", output = true },  # the file allocates n * 32 * sizeof(float) for `out`\n"),
            "{text}"
        );
        assert!(text.contains("block = [32, 8]"), "{text}");
    }

    #[test]
    fn kernels_that_index_in_two_or_three_dimensions_get_a_geometry_and_counts_to_match() {
        let source = r#"
            __global__ void flat(float *out, int n) { out[blockIdx.x * blockDim.x + threadIdx.x] = 0; }
            __global__ void plane(float *out, int width, int height) {
                int x = blockIdx.x * blockDim.x + threadIdx.x;
                int y = blockIdx.y * blockDim.y + threadIdx.y;
                if (x < width && y < height) out[y * width + x] = 1;
            }
            __global__ void rows(float *out, int n) { out[blockIdx.y * n + threadIdx.x] = 2; }
            __global__ void cube(float *out, int n) { out[threadIdx.z * n * n + threadIdx.y * n + threadIdx.x] = 3; }
        "#;
        let (root, text) = draft(&[("g.cu", source)], "g.cu", "s");
        let text = text.unwrap();
        assert!(
            text.contains("sizes = [128]                # fill in: the problem sizes, each binds N (N×N×N elements: a kernel indexes in 3-D)"),
            "{text}"
        );
        for expected in [
            // Every buffer holds the N×N×N elements of the suite; a 1-D
            // kernel covers them all.
            "block = [256]  # fill in: threads per block\ngrid = [\"cdiv(N*N*N, 256)\"]  # fill in: blocks per grid, an expression over N\nargs = [\n  { name = \"out\", buffer = \"f32\", count = \"N*N*N\", output = true },  # fill in: its element count\n  { name = \"n\", scalar = \"i32\", value = \"N*N*N\" }",
            "block = [16, 16]  # fill in: threads per block (the kernel indexes threadIdx in 2-D)\ngrid = [\"cdiv(N, 16)\", \"cdiv(N, 16)\"]  # fill in: blocks per grid, an expression over N\nargs = [\n  { name = \"out\", buffer = \"f32\", count = \"N*N*N\", output = true },  # fill in: its element count\n  { name = \"width\", scalar = \"i32\", value = \"N\" }",
            "block = [256]  # fill in: threads per block\ngrid = [\"cdiv(N, 16)\", \"cdiv(N, 16)\"]",
            "block = [8, 8, 4]  # fill in: threads per block (the kernel indexes threadIdx in 3-D)\ngrid = [\"cdiv(N, 8)\", \"cdiv(N, 8)\", \"cdiv(N, 4)\"]  # fill in: blocks per grid, an expression over N\nargs = [\n  { name = \"out\", buffer = \"f32\", count = \"N*N*N\", output = true }",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        let plan = plan(root.path(), "s");
        assert_eq!(plan.variants[0].instances[0].grid, [8192, 1, 1]);
        assert_eq!(plan.variants[1].instances[0].grid, [8, 8, 1]);
        assert_eq!(plan.variants[3].instances[0].block, [8, 8, 4]);

        let plane_only = "__global__ void plane(float *out, const float *in, int w, int h) { out[(blockIdx.y * blockDim.y + threadIdx.y) * w + threadIdx.x] = in[0]; }";
        let (_root, text) = draft(&[("p.cu", plane_only)], "p.cu", "s");
        let text = text.unwrap();
        assert!(text.contains("sizes = [1024]                # fill in: the problem sizes, each binds N (N×N elements: a kernel indexes in 2-D)"), "{text}");
        assert!(
            text.contains(
                "{ name = \"in\", buffer = \"f32\", count = \"N*N\", fill = \"random\" }"
            ),
            "{text}"
        );
        assert!(
            text.contains("{ name = \"w\", scalar = \"i32\", value = \"N\" }"),
            "{text}"
        );
    }

    /// A sample in the style of NVIDIA's: kernels launched through a
    /// function pointer with `dim3` variables over the file's constants,
    /// helpers in a folder above it.
    const SAMPLE: &str = r#"
        #include <cstdio>
        #include <helper_cuda.h>   // in ../../common
        #include "missing_helper.h"
        #define TILE_DIM 32 // the tile
        const int BLOCK_ROWS = 8;

        __global__ void copy(float *odata, float *idata, int width, int height) {
            int x = blockIdx.x * TILE_DIM + threadIdx.x;
            int y = blockIdx.y * TILE_DIM + threadIdx.y;
            for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
                odata[(y + j) * width + x] = idata[(y + j) * width + x];
        }
        __global__ void transposeNaive(float *odata, float *idata, int width, int height) {
            int x = blockIdx.x * TILE_DIM + threadIdx.x;
            int y = blockIdx.y * TILE_DIM + threadIdx.y;
            for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
                odata[x * height + (y + j)] = idata[(y + j) * width + x];
        }
        __global__ void passedOn(float *odata, float *idata, int width, int height) {
            odata[blockIdx.y * width + threadIdx.x + threadIdx.y] = idata[0];
        }
        __global__ void scale(float *data, int n) {
            data[blockIdx.x * blockDim.x + threadIdx.x] *= 2.0f;
        }
        void run(void (*f)(float *, float *, int, int)) {}
        int main() {
            int size_x = 2048, size_y = 2048;
            void (*kernel)(float *, float *, int, int);
            dim3 grid(size_x / TILE_DIM, size_y / TILE_DIM), threads(TILE_DIM, BLOCK_ROWS);
            for (int k = 0; k < 2; k++) {
                if (k == 0) kernel = &copy;
                else kernel = transposeNaive;
                kernel<<<grid, threads>>>(d_odata, d_idata, size_x, size_y);
            }
            run(passedOn);
        }
    "#;

    #[test]
    fn a_launch_through_a_pointer_with_dim3_variables_gives_the_geometry() {
        let files = [
            ("project/samples/transpose/transpose.cu", SAMPLE),
            ("project/common/helper_cuda.h", "#pragma once\n"),
        ];
        let (root, text) = draft(
            &files,
            "project/samples/transpose/transpose.cu",
            "project/suite",
        );
        let text = text.unwrap();
        for expected in [
            "block = [32, 8]  # from the file's dim3 threads(TILE_DIM, BLOCK_ROWS); copy is launched through the pointer `kernel`\n",
            "grid = [\"N / 32\", \"N / 32\"]  # fill in: from the file's dim3 grid(size_x / TILE_DIM, size_y / TILE_DIM), size_x, size_y (passed as width, height) taken as N; copy is launched through the pointer `kernel`\n",
            "block = [32, 8]  # from the file's dim3 threads(TILE_DIM, BLOCK_ROWS); transposeNaive is launched through the pointer `kernel`\n",
            // Not assigned to the pointer: offered, as a guess, for indexing in 2-D too.
            "block = [32, 8]  # fill in: from the file's dim3 threads(TILE_DIM, BLOCK_ROWS); the file launches a function pointer, `kernel<<<grid, threads>>>`, and does not say whether with this kernel\n",
            // 1-D: not offered.
            "block = [256]  # fill in: threads per block\ngrid = [\"cdiv(N*N, 256)\"]",
            "{ name = \"data\", buffer = \"f32\", count = \"N*N\", output = true, fill = \"random\" }",
            "{ name = \"n\", scalar = \"i32\", value = \"N*N\" }",
            "entry = \"scale\"\nverify = \"none\"  # fill in: its outputs (data) are not named like the baseline's (odata): name them alike to compare them\n",
            "{ name = \"odata\", buffer = \"f32\", count = \"N*N\", output = true },",
            "{ name = \"idata\", buffer = \"f32\", count = \"N*N\", fill = \"random\" },",
            "sizes = [2048] ",
            "baseline = \"transposeNaive\"  # its name says naive: every other variant's output is compared with it",
            "include_dirs = [\"../common\"]  # fill in: the folder(s) that hold <helper_cuda.h> (found near the file, not beside it)\n# fill in: include_dirs = [\"…\"], the folder(s) that hold \"missing_helper.h\": not beside the file, in the folders near it, nor where the CUDA toolkit and the host compiler look\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        assert!(
            !text.contains("hold <cstdio>") && !text.contains(", <cstdio>"),
            "a system header is not looked for\n{text}"
        );
        let plan = plan(root.path(), "project/suite");
        let copy = &plan.variants[0].instances[0];
        assert_eq!((copy.grid, copy.block), ([64, 64, 1], [32, 8, 1]));
        assert_eq!(plan.suite.baseline, "transposeNaive");
    }

    #[test]
    fn launch_expressions_become_expressions_over_n_or_are_left_to_fill_in() {
        let source = r#"
            #define BLOCK 128
            __global__ void add(float *out, const float *in, int n) { out[threadIdx.x] = in[threadIdx.x]; }
            __global__ void shifted(float *out, int n) { out[threadIdx.x] = 0; }
            __global__ void sized(float *out, int n) { out[threadIdx.x] = 0; }
            __global__ void called(float *out, int n) { out[threadIdx.x] = 0; }
            int main() {
                int count = 1 << 20;
                cudaMalloc(&out, count * sizeof(float));
                int blocks = (count + BLOCK - 1) / BLOCK;
                add<<<blocks, BLOCK, BLOCK * 4>>>(out, in, count);
                shifted<<<count >> 8, 256>>>(out, count);
                sized<<<dim3(count / 64, 1, 1), dim3(64)>>>(out, other);
                called<<<blocks_for(count), 256>>>(out, count);
            }
        "#;
        let (root, text) = draft(&[("l.cu", source)], "l.cu", "s");
        let text = text.unwrap();
        for expected in [
            "block = [128]\ngrid = [\"cdiv(N, 128)\"]  # fill in: from the file's <<<blocks, BLOCK, BLOCK * 4>>>, count (passed as n) taken as N\nshared_bytes = 512  # the file passes BLOCK * 4\n",
            // A shift is C's floor of a quotient.
            "block = [256]\ngrid = [\"floor(N / 256)\"]  # fill in: from the file's <<<count >> 8, 256>>>, count (passed as n) taken as N\n",
            // count (1 << 20) is the file's size, so N here too.
            "block = [64]\ngrid = [\"N / 64\"]  # fill in: from the file's <<<dim3(count / 64, 1, 1), dim3(64)>>>, count taken as N\n",
            "block = [256]\ngrid = [\"cdiv(N, 256)\"]  # fill in: blocks per grid, an expression over N (the file launches <<<blocks_for(count), 256>>>)\n",
            "sizes = [1048576]                # fill in: the problem sizes, each binds N; 1048576 is the file's count\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        plan(root.path(), "s");
    }

    #[test]
    fn a_constant_beside_a_size_learned_at_run_time_is_not_the_problem_size() {
        let source = r#"
            const int MOST = 10;
            int count_atoms();
            __global__ void neighbours(int *found, int *list, const float *x, const int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) { list[i * MOST] = i; found[i] = x[i] > 0; }
            }
            int main() {
                int n = count_atoms();
                int *d_found, *d_list; float *d_x;
                cudaMalloc(&d_found, sizeof(int) * n);
                cudaMalloc(&d_list, sizeof(int) * n * MOST);
                cudaMalloc(&d_x, sizeof(float) * n);
                neighbours<<<(n + 127) / 128, 128>>>(d_found, d_list, d_x, n);
            }
        "#;
        let (_root, text) = draft(&[("s.cu", source)], "s.cu", "s");
        let text = text.unwrap();
        for expected in [
            "sizes = [1048576]                # fill in: the problem sizes, each binds N\n",
            "{ name = \"list\", buffer = \"i32\", count = \"N * 10\", output = true },  # fill in: the file allocates sizeof(int) * n * MOST for `d_list`, n taken as N\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_count_set_by_its_exponent_is_the_problem_size_not_the_exponent() {
        let source = r#"
            __global__ void add(const float *a, const float *b, float *c) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                c[i] = a[i] + b[i];
            }
            int main(int argc, char **argv) {
                int power = 20;
                if (argc > 1) power = atoi(argv[1]);
                int elements = 1 << power;
                int bytes = sizeof(float) * elements;
                float *a, *b, *c;
                cudaMalloc(&a, bytes); cudaMalloc(&b, bytes); cudaMalloc(&c, bytes);
                dim3 block(256);
                dim3 grid(elements / block.x);
                add<<<grid, block>>>(a, b, c);
            }
        "#;
        let (_root, text) = draft(&[("s.cu", source)], "s.cu", "s");
        let text = text.unwrap();
        for expected in [
            "sizes = [1048576]                # fill in: the problem sizes, each binds N; 1048576 is the file's elements\n",
            "grid = [\"N / 256\"]",
            "{ name = \"c\", buffer = \"f32\", count = \"N\", output = true },  # the file allocates sizeof(float) * elements for `c`\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_recursive_host_function_does_not_hide_the_size_its_parameter_shares_a_name_with() {
        let source = r#"
            int host_sum(int *data, int const size) {
                if (size == 1) return data[0];
                int const half = size / 2;
                for (int i = 0; i < half; i++) data[i] += data[i + half];
                return host_sum(data, half);
            }
            __global__ void copy_in(const int *in, int *out, unsigned int n) {
                unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) out[i] = in[i];
            }
            int main() {
                int size = 1 << 24;
                dim3 block(1024);
                dim3 grid((size - 1) / block.x + 1);
                size_t bytes = size * sizeof(int);
                int *in, *out;
                cudaMalloc(&in, bytes); cudaMalloc(&out, bytes);
                copy_in<<<grid, block>>>(in, out, size);
            }
        "#;
        let (_root, text) = draft(&[("s.cu", source)], "s.cu", "s");
        let text = text.unwrap();
        let expected = "sizes = [16777216]                # fill in: the problem sizes, each binds N; 16777216 is the file's size\n";
        assert!(text.contains(expected), "{expected}\n{text}");
    }

    #[test]
    fn a_buffer_summed_in_place_is_scratch_and_a_warm_up_kernel_no_step() {
        let source = r#"
            __global__ void warmup(int *g_idata, int *g_odata, unsigned int n) {
                unsigned int tid = threadIdx.x;
                int *idata = g_idata + blockIdx.x * blockDim.x;
                for (int stride = 1; stride < blockDim.x; stride *= 2) {
                    if ((tid % (2 * stride)) == 0) idata[tid] += idata[tid + stride];
                    __syncthreads();
                }
                if (tid == 0) g_odata[blockIdx.x] = idata[0];
            }
            __global__ void neighbored(int *g_idata, int *g_odata, unsigned int n) {
                unsigned int tid = threadIdx.x;
                int *idata = g_idata + blockIdx.x * blockDim.x;
                for (int stride = 1; stride < blockDim.x; stride *= 2) {
                    if ((tid % (2 * stride)) == 0) idata[tid] += idata[tid + stride];
                    __syncthreads();
                }
                if (tid == 0) g_odata[blockIdx.x] = idata[0];
            }
            __global__ void unrolled(int *g_idata, int *g_odata, unsigned int n) {
                unsigned int tid = threadIdx.x;
                int *idata = g_idata + blockIdx.x * blockDim.x;
                if (tid < 512) idata[tid] += idata[tid + 512];
                __syncthreads();
                if (tid == 0) g_odata[blockIdx.x] = idata[0];
            }
            __global__ void scan(int *data, int *block_sums, unsigned int n) {
                unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
                for (int s = 1; s < blockDim.x; s *= 2) {
                    int before = threadIdx.x >= s ? data[i - s] : 0;
                    __syncthreads();
                    data[i] += before;
                    __syncthreads();
                }
                if (threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = data[i];
            }
            int main() {
                int size = 1 << 20;
                dim3 block(1024);
                dim3 grid((size - 1) / block.x + 1);
                int *in, *out;
                cudaMalloc(&in, size * sizeof(int));
                cudaMalloc(&out, grid.x * sizeof(int));
                warmup<<<grid, block>>>(in, out, size);
                neighbored<<<grid, block>>>(in, out, size);
                unrolled<<<grid, block>>>(in, out, size);
                scan<<<grid, block>>>(in, out, size);
            }
        "#;
        let (_root, text) = draft(&[("s.cu", source)], "s.cu", "s");
        let text = text.unwrap();
        assert!(
            text.contains("# Not drafted: warmup (its name says it warms the GPU up before the timed kernels; gpuprof warms each variant up itself).\n"),
            "{text}"
        );
        assert!(!text.contains("name = \"warmup\""), "{text}");
        let scratch = "{ name = \"g_idata\", buffer = \"i32\", count = \"N\", fill = \"random\" },  # the file allocates size * sizeof(int) for `in` (the kernel sums in it in place, so what it leaves there depends on the order it sums in: filled, not compared; its result, `g_odata`, is)\n";
        assert_eq!(text.matches(scratch).count(), 2, "{text}");
        // A scan's buffer is its answer.
        assert!(
            text.contains("{ name = \"data\", buffer = \"i32\", count = \"N\", output = true, fill = \"random\" },"),
            "{text}"
        );
    }

    #[test]
    fn a_host_template_sizes_its_buffers_with_the_type_its_caller_gives() {
        let source = r#"
            template <typename T>
            __global__ void shifted(T *a, int s) {
                int i = blockDim.x * blockIdx.x + threadIdx.x + s;
                a[i] = a[i] + 1;
            }
            template <typename T>
            void run(int megabytes) {
                int n = megabytes * 1024 * 1024 / sizeof(T);
                T *d_a;
                cudaMalloc(&d_a, n * 2 * sizeof(T));
                shifted<<<n / 256, 256>>>(d_a, 0);
            }
            int main(int argc, char **argv) {
                int megabytes = 4;
                bool wide = argc > 1;
                if (wide) run<double>(megabytes);
                else run<float>(megabytes);
            }
        "#;
        let (_root, text) = draft(&[("s.cu", source)], "s.cu", "s");
        let text = text.unwrap();
        for expected in [
            "entry = \"shifted<float>\"                # the instance the file launches, its types deduced from the pointers it passes\n",
            "{ name = \"a\", buffer = \"f32\", count = \"floor(N * 1024 * 1024 / 4) * 2\", output = true, fill = \"random\" },",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn shared_memory_of_sizeof_a_scalar_type_or_alias_is_drafted() {
        let source = r#"
            #include <cstdint>
            #define THREADS 1024
            typedef double real;
            __global__ void scan(const uint32_t *in, uint32_t *out, int n) { out[threadIdx.x] = in[0]; }
            __global__ void aliased(real *out, int n) { out[threadIdx.x] = 0; }
            __global__ void per_element(float *out, int n) { out[threadIdx.x] = 0; }
            __global__ void opaque(float *out, int n) { out[threadIdx.x] = 0; }
            __global__ void staged(float *out, int n) { extern __shared__ __align__(16) float tile[]; tile[threadIdx.x] = 1; out[threadIdx.x] = tile[0]; }
            int main() {
                scan<<<1, THREADS, THREADS * sizeof(uint32_t)>>>(in, out, n);
                aliased<<<1, 256, 2 * 256 * sizeof (real)>>>(out, n);
                per_element<<<1, 256, count * sizeof(float)>>>(out, count);
                opaque<<<1, 256, sizeof(Params)>>>(out, n);
                staged<<<1, dim3(32, 8), sizeof(Params)>>>(out, n);
            }
        "#;
        let (_root, text) = draft(&[("s.cu", source)], "s.cu", "s");
        let text = text.unwrap();
        for expected in [
            "shared_bytes = 4096  # the file passes THREADS * sizeof(uint32_t)\n",
            "shared_bytes = 4096  # the file passes 2 * 256 * sizeof (real)\n",
            "shared_bytes = \"N * 4\"  # fill in: the file passes count * sizeof(float), count (passed as n) taken as N\n",
            "shared_bytes = 0  # fill in: the file passes sizeof(Params)\n",
            "shared_bytes = 1024  # fill in: the file passes sizeof(Params), which gpuprof cannot work out: drafted as one `float` of the kernel's extern __shared__ array a thread of the block\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_launch_inside_a_host_wrapper_is_followed_to_the_values_its_caller_passes() {
        let source = r#"
            #define TILE 32
            __global__ void transpose_naive(float *out, const float *in, int width, int height) {
                int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
                if (x < width && y < height) out[x * height + y] = in[y * width + x];
            }
            void run_transpose(float *d_out, const float *d_in, int w, int h) {
                dim3 block(TILE, TILE);
                dim3 grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE);
                transpose_naive<<<grid, block>>>(d_out, d_in, w, h);
            }
            int main() {
                const int n = 4096;
                float *a, *b;
                cudaMalloc(&a, n * n * sizeof(float));
                cudaMalloc(&b, n * n * sizeof(float));
                run_transpose(b, a, n, n);
            }
        "#;
        let (root, text) = draft(&[("w.cu", source)], "w.cu", "w");
        let text = text.unwrap();
        assert!(
            text.contains("sizes = [4096]                # fill in: the problem sizes, each binds N; 4096 is the file's n, w, h (N×N elements: a kernel indexes in 2-D)\n"),
            "{text}"
        );
        assert_eq!(
            plan(root.path(), "w").variants[0].instances[0].grid,
            [128, 128, 1]
        );
        // The buffers, followed through the wrapper to their allocations.
        assert!(
            text.contains("  { name = \"out\", buffer = \"f32\", count = \"N * N\", output = true },  # the file allocates n * n * sizeof(float) for `b`\n"),
            "{text}"
        );
    }

    #[test]
    fn values_written_in_the_launch_and_sizes_allocated_through_a_bytes_variable_are_read() {
        let source = r#"
            __global__ void shift(const float *in, float *out, int n, int offset, int stride_bytes) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i + offset < n) out[i] = in[i + offset] + stride_bytes;
            }
            int main() {
                int count = 10000000;
                size_t mem_size = sizeof(float) * count;
                float *in, *out;
                cudaMalloc((void **)&in, mem_size);
                cudaMalloc((void **)&out, mem_size);
                shift<<<(count + 255) / 256, 256>>>(in, out, count, 0, 1024 * sizeof(float));
            }
        "#;
        let (_root, text) = draft(&[("s.cu", source)], "s.cu", "s");
        let text = text.unwrap();
        for expected in [
            "sizes = [10000000]                # fill in: the problem sizes, each binds N; 10000000 is the file's count\n",
            "  { name = \"n\", scalar = \"i32\", value = \"N\" },  # fill in: the file passes count, taken as N\n",
            "  { name = \"offset\", scalar = \"i32\", value = 0 },  # fill in: its value (the file passes 0)\n",
            "  { name = \"stride_bytes\", scalar = \"i32\", value = 4096 },  # fill in: its value (the file passes 1024 * sizeof(float))\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_grid_written_with_a_ceil_div_macro_a_function_or_a_dim3_member_is_read() {
        let kernel = "__global__ void k(const float *in, float *out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[i]; }";
        let main = |launch: &str| {
            format!(
                "{kernel}\n#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))\ninline int div_up(int a, int b) {{ return (a + b - 1) / b; }}\nint main() {{\n    int size = 1 << 24;\n    float *in, *out;\n    cudaMalloc(&in, size * sizeof(float));\n    cudaMalloc(&out, size * sizeof(float));\n    dim3 block(256);\n    dim3 grid((size - 1) / block.x + 1);\n    {launch}\n}}\n"
            )
        };
        for (launch, grid) in [
            (
                "k<<<CEIL_DIV(size, 256), block>>>(in, out, size);",
                "cdiv(N, 256)",
            ),
            (
                "k<<<div_up(size, 256), 256>>>(in, out, size);",
                "cdiv(N, 256)",
            ),
            // C's division inside another is floored.
            (
                "k<<<grid.x / 2, block>>>(in, out, size);",
                "cdiv(floor((N - 1) / 256), 2)",
            ),
        ] {
            let (root, text) = draft(&[("k.cu", &main(launch))], "k.cu", "k");
            let text = text.unwrap();
            assert!(
                text.contains(&format!("grid = [\"{grid}\"]  # fill in: from the file's")),
                "{launch}\n{text}"
            );
            let expected = match grid.starts_with("cdiv(N") {
                true => 65536,
                false => 32768,
            };
            assert_eq!(
                plan(root.path(), "k").variants[0].instances[0].grid,
                [expected, 1, 1],
                "{launch}"
            );
        }
    }

    #[test]
    fn a_template_argument_the_host_computes_is_its_value_at_the_files_numbers() {
        let source = r#"
            #define N (1 << 20)
            #define BLOCK 256
            template <int BS, int PER_THREAD>
            __global__ void red(const float *in, float *out) {
                float s = 0;
                for (int k = 0; k < PER_THREAD; ++k) s += in[(blockIdx.x * PER_THREAD + k) * BS + threadIdx.x];
                out[blockIdx.x * BS + threadIdx.x] = s;
            }
            int main() {
                const int blocks = 64;
                const int PER_THREAD = N / blocks / BLOCK;
                red<BLOCK, PER_THREAD><<<blocks, BLOCK>>>(in, out);
            }
        "#;
        let (_root, text) = draft(&[("r.cu", source)], "r.cu", "r");
        let text = text.unwrap();
        let computed = "entry = \"red<256, 64>\"                # fill in: the instance the file launches, `PER_THREAD` is 64, computed from the file's own values: check it at your sizes\n";
        assert!(text.contains(computed), "a constant's value: {text}");
        // What C++ computes but a constant's reader cannot (`sizeof`) is
        // worked out as the suite would, and marked too.
        let source = source.replace(
            "N / blocks / BLOCK",
            "(N * sizeof(float)) / (blocks * BLOCK * 4)",
        );
        let (_root, text) = draft(&[("r.cu", &source)], "r.cu", "r");
        let text = text.unwrap();
        assert!(
            text.contains("entry = \"red<256, 64>\"                # fill in: the instance the file launches, `PER_THREAD` is 64, computed from the file's own values: check it at your sizes\n"),
            "{text}"
        );
    }

    #[test]
    fn a_template_launched_without_arguments_has_its_types_deduced_from_the_pointers_passed() {
        let source = r#"
            template <typename T, int BLOCK = 256>
            __global__ void scale(const T *in, T *out, int n) {
                int i = blockIdx.x * BLOCK + threadIdx.x;
                if (i < n) out[i] = in[i] * T(2);
            }
            template <typename T>
            __global__ void fill(T *out, T value, int n) { if (threadIdx.x < n) out[threadIdx.x] = value; }
            int main() {
                const int n = 1 << 20;
                double *in, *out;
                cudaMalloc(&in, n * sizeof(double));
                cudaMalloc(&out, n * sizeof(double));
                scale<<<n / 256, 256>>>(in, out, n);
                fill<<<n / 256, 256>>>(out, 2.0, n);
            }
        "#;
        let (root, text) = draft(&[("t.cu", source)], "t.cu", "t");
        let text = text.unwrap();
        for expected in [
            "entry = \"scale<double>\"                # the instance the file launches, its types deduced from the pointers it passes\n",
            "  { name = \"in\", buffer = \"f64\", count = \"N\", fill = \"random\" },",
            // `T value` by value is not deduced from a pointer: T comes from `out`.
            "entry = \"fill<double>\"",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        let plan = plan(root.path(), "t");
        assert_eq!(plan.variants.len(), 2);

        // A pointer of the host template's own `T` is of the type its
        // caller gives `T` (`run<float>`): the instance deduced from it
        // keeps its defaults; a value without one is left to fill in.
        let source = r#"
            template <typename T, int STEP = 4> __global__ void offset(T *a, int s) { a[threadIdx.x + s] += STEP; }
            template <typename T, int WIDTH> __global__ void wide(T *a) { a[threadIdx.x * WIDTH] = 0; }
            template <typename T, int TILE> __global__ void tile(T *a) { a[threadIdx.x * TILE] = 1; }
            template <typename T> __global__ void staged(T *a) { extern __shared__ char s[]; a[threadIdx.x] = s[0]; }
            template <typename T> void run(int n) {
                T *d_a; cudaMalloc(&d_a, n * sizeof(T));
                offset<<<n / 256, 256>>>(d_a, 0);
                wide<<<n / 256, 256>>>(d_a);
                tile<T, 32><<<n / 256, 256>>>(d_a);
                staged<<<n / 256, 256, 256 * sizeof(scalar_t)>>>(d_a);
            }
            int main() { run<float>(1 << 20); }
        "#;
        let (_root, text) = draft(&[("h.cu", source)], "h.cu", "h");
        let text = text.unwrap();
        for expected in [
            "entry = \"offset<float>\"                # the instance the file launches, its types deduced from the pointers it passes\n",
            "{ name = \"a\", buffer = \"f32\", count = \"N\", output = true, fill = \"random\" },  # the file allocates n * sizeof(T) for `d_a`",
            "entry = \"wide<…>\"                # fill in: a value for each of <typename T, int WIDTH>\n",
            "entry = \"tile<float, 32>\"                # fill in: float chosen for `T` (the file launches tile<T,32>; template <typename T, int TILE>)\n",
            "shared_bytes = 1024  # fill in: the file passes 256 * sizeof(scalar_t), scalar_t taken as float\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }

        // A template the file only instantiates explicitly (its
        // definitions compiled on their own, launched elsewhere): one of
        // those instances, marked as a choice where there are several.
        let source = r#"
            namespace k {
            template <const int BLOCK> __global__ void tiled(float *a) { a[blockIdx.x * BLOCK + threadIdx.x] = 1; }
            template __global__ void tiled<16>(float *a);
            template __global__ void tiled<32>(float *a);
            template <typename T, int W> __global__ void wide(T *a) { a[threadIdx.x * W] = 1; }
            template __global__ void wide<float, 4>(float *a);
            }
        "#;
        let (root, text) = draft(&[("e.cu", source)], "e.cu", "e");
        let text = text.unwrap();
        for expected in [
            "entry = \"k::tiled<16>\"                # fill in: one of the instances the file instantiates explicitly: k::tiled<16>, k::tiled<32>\n",
            "entry = \"k::wide<float, 4>\"                # the instance the file instantiates explicitly\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        assert_eq!(super::tests::plan(root.path(), "e").variants.len(), 2);
    }

    #[test]
    fn a_constant_the_grid_divides_by_is_a_tile_not_the_problem_size() {
        let source = r#"
            #define ROWS_PER_BLOCK 4
            __global__ void rows(const float *A, float *C, int N) {
                int r = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
                if (r < N) C[r] = A[r];
            }
            void run(const float *A, float *C, int N) {
                rows<<<(N + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, 128>>>(A, C, N);
            }
        "#;
        let (_root, text) = draft(&[("r.cu", source)], "r.cu", "r");
        let text = text.unwrap();
        for expected in [
            "sizes = [1048576]                # fill in: the problem sizes, each binds N\n",
            "grid = [\"cdiv(N, 4)\"]",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_file_whose_kernels_a_macro_declares_is_refused_with_what_to_do() {
        let source = "#define KERNEL(name) __global__ void name(float *a) { a[threadIdx.x] = 1; }\nKERNEL(k1)\nKERNEL(k2)\n";
        let (_root, text) = draft(&[("m.cu", source)], "m.cu", "m");
        let error = text.unwrap_err();
        assert!(
            error.contains("declares its kernels through a macro (a `#define` that holds `__global__`), which init does not expand: write each variant by hand"),
            "{error}"
        );
    }

    #[test]
    fn a_problem_size_the_file_defines_becomes_the_sizes_and_n() {
        let source = r#"
            #define SIZE 16384
            #define BLOCK_SIZE 256
            __global__ void scan(int *in, int *out) {
                int g = blockIdx.x * blockDim.x + threadIdx.x;
                __shared__ int tile[BLOCK_SIZE];
                if (g < SIZE) out[g] = in[g];
            }
            int main() {
                int *in; cudaMallocManaged(&in, SIZE * sizeof(int));
                scan<<<(SIZE + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(in, out);
            }
        "#;
        let (root, text) = draft(&[("s.cu", source)], "s.cu", "s");
        let text = text.unwrap();
        for expected in [
            "sizes = [16384]                # fill in: the problem sizes, each binds N; 16384 is the file's SIZE; the kernels are compiled with the file's #define SIZE: at another size they still read 16384 (guard it with #ifndef and give it in each variant's defines)\n",
            "block = [256]\ngrid = [\"cdiv(N, 256)\"]  # fill in: from the file's <<<(SIZE + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>, SIZE taken as N\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        assert_eq!(
            plan(root.path(), "s").variants[0].instances[0].grid,
            [64, 1, 1]
        );

        // Two sizes: N cannot be both, and the grids say so.
        let source = r#"
            #define ROWS 4096
            #define COLS 8192
            __global__ void rows(float *out) { if (blockIdx.x * 256 + threadIdx.x < ROWS) out[0] = 1; }
            __global__ void cols(float *out) { if (blockIdx.x * 256 + threadIdx.x < COLS) out[0] = 1; }
            int main() {
                rows<<<ROWS / 256, 256>>>(out);
                cols<<<COLS / 256, 256>>>(out);
            }
        "#;
        let (_root, text) = draft(&[("r.cu", source)], "r.cu", "s");
        let text = text.unwrap();
        for expected in [
            "sizes = [1048576]                # fill in: the problem sizes, each binds N\n",
            "grid = [16]  # fill in: from the file's <<<ROWS / 256, 256>>>; ROWS (4096) is the file's problem size, not the sizes' N = 1048576: write it over N\n",
            "grid = [32]  # fill in: from the file's <<<COLS / 256, 256>>>; COLS (8192) is the file's problem size",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_host_variable_that_sizes_an_allocation_is_the_problem_size() {
        // No scalar passes the size: it reaches the launch only through
        // the grid's variable, and the allocation.
        let source = r#"
            __global__ void sum(int *v, int *v_r) {
                __shared__ int s[256];
                s[threadIdx.x] = v[blockIdx.x * blockDim.x + threadIdx.x];
                __syncthreads();
                if (threadIdx.x == 0) v_r[blockIdx.x] = s[0];
            }
            int main() {
                int N = 1 << 16;
                size_t bytes = N * sizeof(int);
                const int TB_SIZE = 256;
                // Derived from N: not a second problem size.
                int GRID_SIZE = N / TB_SIZE;
                int *d_v, *d_v_r;
                cudaMalloc(&d_v, bytes);
                cudaMalloc(&d_v_r, GRID_SIZE * sizeof(int));
                sum<<<GRID_SIZE, TB_SIZE>>>(d_v, d_v_r);
                sum<<<1, TB_SIZE>>>(d_v_r, d_v_r);
            }
        "#;
        let (root, text) = draft(&[("r.cu", source)], "r.cu", "s");
        let text = text.unwrap();
        for expected in [
            "sizes = [65536]                # fill in: the problem sizes, each binds N; 65536 is the file's N\n",
            "grid = [\"N / 256\"]",
            "{ name = \"v\", buffer = \"i32\", count = \"N\", fill = \"random\" },  # the file allocates N * sizeof(int) for `d_v`",
            // The second pass over the partials is named, not drafted.
            "# the file also launches sum<<<1, TB_SIZE>>>(d_v_r, d_v_r): only its first launch is drafted; launches run one after another are a `sequence` of steps\nblock = [256]\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        assert_eq!(
            plan(root.path(), "s").variants[0].instances[0].grid,
            [256, 1, 1]
        );
    }

    #[test]
    fn a_template_argument_is_no_problem_size() {
        // ROWS is the kernel's template parameter and the host's constant
        // of the same name: a tiling, while M (from argv) stays the size.
        let source = r#"
            template <const int ROWS>
            __global__ void gemv(const float *A, const float *x, float *y, const int M, const int N) {
                int row = (blockDim.y * blockIdx.x + threadIdx.y) * ROWS;
                if (row < M) y[row] = A[row * N] * x[0];
            }
            int main(int argc, char **argv) {
                size_t M = atoi(argv[1]);
                size_t N = atoi(argv[2]);
                float *d_A, *d_x, *d_y;
                cudaMalloc(&d_A, sizeof(float) * M * N);
                cudaMalloc(&d_x, sizeof(float) * N);
                cudaMalloc(&d_y, sizeof(float) * M);
                const int ROWS = 2;
                const int ROWS_PER_BLOCK = 4 * ROWS;
                dim3 grid(M / ROWS_PER_BLOCK);
                dim3 block(32, 4);
                gemv<ROWS><<<grid, block>>>(d_A, d_x, d_y, M, N);
            }
        "#;
        let (_root, text) = draft(&[("g.cu", source)], "g.cu", "s");
        let text = text.unwrap();
        assert!(!text.contains("is the file's ROWS"), "{text}");
        assert!(text.contains("grid = [\"N / 8\"]"), "{text}");
    }

    #[test]
    fn a_variable_the_file_computes_is_not_taken_as_n() {
        let source = r#"
            #define MAX_BLOCK_SZ 1024
            __global__ void prescan(unsigned int *out, const unsigned int *in, unsigned int len,
                                    unsigned int shmem_sz, unsigned int max_elems_per_block) {
                unsigned int i = max_elems_per_block * blockIdx.x + threadIdx.x;
                if (i < len) out[i] = in[i];
            }
            __global__ void pad(unsigned int *out, unsigned int banks) { out[threadIdx.x] = banks; }
            void run(unsigned int *out, const unsigned int *in, size_t numElems) {
                unsigned int block_sz = MAX_BLOCK_SZ / 2;
                unsigned int max_elems_per_block = 2 * block_sz;
                unsigned int grid_sz = numElems / max_elems_per_block;
                unsigned int shmem_sz = max_elems_per_block + ((max_elems_per_block - 1) >> 5);
                prescan<<<grid_sz, block_sz, sizeof(unsigned int) * shmem_sz>>>(out, in, numElems,
                    shmem_sz, max_elems_per_block);
                unsigned int banks = bank_count(block_sz);
                pad<<<1, 32>>>(out, banks);
            }
        "#;
        let (root, text) = draft(&[("p.cu", source)], "p.cu", "s");
        let text = text.unwrap();
        for expected in [
            "block = [512]\ngrid = [\"N / 1024\"]  # fill in: from the file's <<<grid_sz, block_sz, sizeof(unsigned int) * shmem_sz>>>, numElems (passed as len) taken as N\n",
            // `>> 5` is C's floor(1023 / 32) = 31.
            "shared_bytes = 4220  # the file passes sizeof(unsigned int) * shmem_sz\n",
            "{ name = \"len\", scalar = \"u32\", value = \"N\" },  # fill in: the file passes numElems, taken as N\n",
            "{ name = \"shmem_sz\", scalar = \"u32\", value = 1055 },  # fill in: its value (the file passes shmem_sz = max_elems_per_block + ((max_elems_per_block - 1) >> 5))\n",
            "{ name = \"banks\", scalar = \"u32\", value = \"N\" },  # fill in: its value (the file passes banks = bank_count(block_sz), which gpuprof cannot evaluate)\n",
            "{ name = \"max_elems_per_block\", scalar = \"u32\", value = 1024 },  # fill in: its value (the file passes max_elems_per_block = 2 * block_sz)\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        assert!(!text.contains("N / N"), "{text}");
        assert_eq!(
            plan(root.path(), "s").variants[0].instances[0].grid,
            [1024, 1, 1]
        );
    }

    /// A bitonic sort as homework writes it: a launch per stage, in two
    /// nested loops over the host's `n`, with `dim3` variables.
    const BITONIC: &str = r#"
        #include <stdlib.h>
        #define THREADS 512

        __global__ void bitonic_sort_step(float *dev_values, int j, int k) {
            unsigned int i = threadIdx.x + blockDim.x * blockIdx.x;
            unsigned int ixj = i ^ j;
            if (ixj > i) {
                bool up = (i & k) == 0;
                float a = dev_values[i], b = dev_values[ixj];
                if ((a > b) == up) { dev_values[i] = b; dev_values[ixj] = a; }
            }
        }

        void bitonic_sort(float *values, int n) {
            float *dev_values;
            size_t size = n * sizeof(float);
            cudaMalloc((void **)&dev_values, size);
            cudaMemcpy(dev_values, values, size, cudaMemcpyHostToDevice);
            dim3 blocks(n / THREADS, 1);   /* Number of blocks */
            dim3 threads(THREADS, 1);      /* Number of threads */
            int j, k;
            /* Major step */
            for (k = 2; k <= n; k <<= 1) {
                /* Minor step */
                for (j = k >> 1; j > 0; j = j >> 1) {
                    bitonic_sort_step<<<blocks, threads>>>(dev_values, j, k);
                }
            }
            cudaMemcpy(values, dev_values, size, cudaMemcpyDeviceToHost);
            cudaFree(dev_values);
        }

        int main(void) {
            int n = 1 << 20;
            float *values = (float *)malloc(n * sizeof(float));
            for (int i = 0; i < n; ++i) values[i] = rand();
            bitonic_sort(values, n);
        }
    "#;

    /// The variant `name`'s table in the drafted `text`.
    fn variant_of<'t>(text: &'t str, name: &str) -> &'t str {
        text.split("\n[[variant]]\n")
            .find(|v| v.starts_with(&format!("name = \"{name}\"\n")))
            .unwrap_or_else(|| panic!("no variant {name}\n{text}"))
    }

    /// The scalars of a plan's step: name and value.
    fn scalars(step: &crate::config::plan::Step) -> Vec<(String, f64)> {
        step.args
            .iter()
            .filter_map(|a| match a {
                crate::config::plan::StepArg::Scalar(s) => Some((s.name.clone(), s.value)),
                crate::config::plan::StepArg::Buffer { .. } => None,
            })
            .collect()
    }

    #[test]
    fn a_launch_in_loops_over_its_arguments_is_a_sequence_step_they_repeat() {
        let (root, text) = draft(&[("bitonic.cu", BITONIC)], "bitonic.cu", "s");
        let text = text.unwrap();
        assert!(
            text.contains("sizes = [1048576]                # fill in: the problem sizes, each binds N; 1048576 is the file's n\n"),
            "{text}"
        );
        assert_eq!(
            variant_of(&text, "bitonic_sort_step"),
            r#"name = "bitonic_sort_step"
source = "../bitonic.cu"
args = [
  { name = "dev_values", buffer = "f32", count = "N", output = true, fill = "random" },  # the file allocates n * sizeof(float) for `dev_values` (the kernel reads and writes it: filled, then compared)
]
# fill in: grid: from the file's dim3 blocks(n / THREADS, 1), n taken as N
sequence = [
  { entry = "bitonic_sort_step", repeat = [
      { for = "k", from = 2, while = "k <= N", next = "k * 2" },  # fill in: from the file's for (k = 2; k <= n; k <<= 1), n taken as N
      { for = "j", from = "floor(k / 2)", while = "j > 0", next = "floor(j / 2)" },  # from the file's for (j = k >> 1; j > 0; j = j >> 1)
    ], block = [512], grid = ["N / 512"], args = [
      { name = "dev_values" },
      { name = "j", scalar = "i32", value = "j" },
      { name = "k", scalar = "i32", value = "k" },
    ] },
]
"#
        );
        // log2(N) (log2(N) + 1) / 2 launches: (k, j) = (2, 1), (4, 2), (4, 1), …
        let launches = &plan(root.path(), "s").variants[0].instances[0].sequence;
        assert_eq!(launches.len(), 20 * 21 / 2);
        let turns: Vec<Vec<(String, f64)>> = launches[..3].iter().map(scalars).collect();
        let named = |j: f64, k: f64| vec![("j".to_string(), j), ("k".to_string(), k)];
        assert_eq!(turns, [named(1.0, 2.0), named(2.0, 4.0), named(1.0, 4.0)]);
        assert_eq!(launches[209].grid, [2048, 1, 1]);
    }

    #[test]
    fn the_drafted_bitonic_sort_passes_the_check_as_drafted() {
        let (root, _) = draft(&[("bitonic.cu", BITONIC)], "bitonic.cu", "s");
        let toml = root.path().join("s/variants.toml");
        // Compiled by nvcc where it is installed (on PATH or CUDA_HOME).
        let checked = crate::check::check(&toml, (9, 0)).unwrap_or_else(|e| panic!("{e}"));
        assert!(checked.failed.is_empty(), "{}", checked.text);
        assert!(
            checked.not_compiled.len() == 1 || checked.text.contains("compiled at every size"),
            "{}",
            checked.text
        );
        assert!(
            // The buffer's count is the file's allocation, no longer marked.
            checked.text.contains("4 lines of") && checked.text.contains("still say `# fill in:`"),
            "{}",
            checked.text
        );
    }

    /// A merge network whose stride loop launches a global merge where
    /// the stride is at least LIMIT and a shared one where it is not
    /// (`BRANCH` is the statement after `else`).
    const MERGES: &str = r#"
        #define LIMIT 1024
        __global__ void global_merge(float *d, int size, int stride) { d[threadIdx.x] += stride; }
        __global__ void shared_merge(float *d, int size) { d[threadIdx.x] += size; }
        void sort(float *values, int n) {
            float *d;
            cudaMalloc((void **)&d, n * sizeof(float));
            if (n > LIMIT) {
                for (int size = 2 * LIMIT; size <= n; size <<= 1)
                    for (int stride = size / 2; stride > 0; stride >>= 1)
                        if (stride >= LIMIT) {
                            global_merge<<<n / 256, 256>>>(d, size, stride);
                        }
                        else BRANCH
            }
        }
        int main(void) {
            int n = 1 << 16;
            float *values = (float *)malloc(n * sizeof(float));
            sort(values, n);
        }
    "#;

    #[test]
    fn an_if_in_the_loops_is_the_steps_when_and_its_else_the_negation() {
        let source = MERGES.replace("BRANCH", "shared_merge<<<n / 1024, 512>>>(d, size);");
        let (root, text) = draft(&[("m.cu", &source)], "m.cu", "s");
        let text = text.unwrap();
        let global = variant_of(&text, "global_merge");
        for expected in [
            // The if around the loops is only noted.
            "# the file runs these loops inside if (n > LIMIT), around them: the sizes should be ones where it holds\n",
            "# when: from the file's if (stride >= LIMIT)\nsequence = [\n  { entry = \"global_merge\", when = \"stride >= 1024\", repeat = [\n",
        ] {
            assert!(global.contains(expected), "{expected}\n{global}");
        }
        let shared = variant_of(&text, "shared_merge");
        // The stride loop repeats the shared merge too: its if tests stride.
        for expected in [
            "# when: from the file's else of if (stride >= LIMIT)\nsequence = [\n  { entry = \"shared_merge\", when = \"stride < 1024\", repeat = [\n",
            "      { for = \"stride\", from = \"floor(size / 2)\", while = \"stride > 0\", next = \"floor(stride / 2)\" },",
        ] {
            assert!(shared.contains(expected), "{expected}\n{shared}");
        }
        assert!(!text.contains("ends early"), "{text}");
        // N = 65536: sizes 2048 … 65536 (6), strides >= 1024: 1 + 2 + … + 6,
        // strides 512 … 1: 10 a size.
        let plan = plan(root.path(), "s");
        let launches = |v: usize| plan.variants[v].instances[0].sequence.len();
        assert_eq!((launches(0), launches(1)), (21, 60));
        let strides: Vec<f64> = plan.variants[1].instances[0].sequence[..10]
            .iter()
            .map(|l| scalars(l)[0].1)
            .collect();
        assert_eq!(strides, [2048.0; 10]);
    }

    #[test]
    fn the_drafted_if_else_in_loops_passes_the_check() {
        let source = MERGES.replace("BRANCH", "shared_merge<<<n / 1024, 512>>>(d, size);");
        let (root, _) = draft(&[("m.cu", &source)], "m.cu", "s");
        let toml = root.path().join("s/variants.toml");
        let checked = crate::check::check(&toml, (9, 0)).unwrap_or_else(|e| panic!("{e}"));
        assert!(checked.failed.is_empty(), "{}", checked.text);
        assert!(
            checked.text.contains("global_merge ×21") && checked.text.contains("shared_merge ×60"),
            "{}",
            checked.text
        );
    }

    #[test]
    fn nested_ifs_and_conditions_join_with_and() {
        let source = MERGES.replace(
            "if (stride >= LIMIT) {",
            "if (size < n && (stride >= LIMIT)) if (stride != size / 4) {",
        );
        let source = source.replace("else BRANCH", "");
        let text = draft(&[("m.cu", &source)], "m.cu", "s").1.unwrap();
        let global = variant_of(&text, "global_merge");
        assert!(
            global.contains("# fill in: when: from the file's if (size < n && (stride >= LIMIT)) and if (stride != size / 4), n taken as N\nsequence = [\n  { entry = \"global_merge\", when = \"size < N && stride >= 1024 && stride != floor(size / 4)\", repeat = [\n"),
            "{global}"
        );
    }

    #[test]
    fn an_if_gpuprof_cannot_translate_or_the_else_of_several_comparisons_is_left_to_fill_in() {
        let source = MERGES.replace(
            "if (stride >= LIMIT) {",
            "if (stride >= LIMIT || size == n) {",
        );
        let source = source.replace("BRANCH", "shared_merge<<<n / 1024, 512>>>(d, size);");
        let text = draft(&[("m.cu", &source)], "m.cu", "s").1.unwrap();
        let global = variant_of(&text, "global_merge");
        assert!(
            global.contains("# fill in: when: the file launches it in the if (stride >= LIMIT || size == n), which gpuprof cannot translate; write when = \"CONDITION\" on the step, where it holds: comparisons over stride, size, N joined by && (no ||, no !)\nsequence = [\n  { entry = \"global_merge\", repeat = [\n"),
            "{global}"
        );
        let shared = variant_of(&text, "shared_merge");
        assert!(
            shared.contains("where it does not hold") && !shared.contains(", when = "),
            "{shared}"
        );
        let source = MERGES.replace(
            "if (stride >= LIMIT) {",
            "if (stride >= LIMIT && size < n) {",
        );
        let source = source.replace("BRANCH", "shared_merge<<<n / 1024, 512>>>(d, size);");
        let text = draft(&[("m.cu", &source)], "m.cu", "s").1.unwrap();
        let shared = variant_of(&text, "shared_merge");
        assert!(
            shared.contains("# fill in: when: the file launches it in the else of if (stride >= LIMIT && size < n), where one of its comparisons fails, which one when (comparisons over stride, size, N joined by &&, no ||) cannot say: write this step once per comparison")
                && shared.contains("{ entry = \"shared_merge\", repeat = [\n"),
            "{shared}"
        );
        assert!(
            variant_of(&text, "global_merge").contains("when = \"stride >= 1024 && size < N\""),
            "{text}"
        );
    }

    #[test]
    fn a_break_in_the_loops_is_left_to_fold_into_the_while() {
        let source = MERGES.replace(
            "BRANCH",
            "{\n shared_merge<<<n / 1024, 512>>>(d, size);\n break;\n }",
        );
        let (root, text) = draft(&[("m.cu", &source)], "m.cu", "s");
        let text = text.unwrap();
        let note = "# fill in: loop stride: the file's for (int stride = size / 2; stride > 0; stride >>= 1) ends early (`break;` in the else of if (stride >= LIMIT)), and gpuprof's loops have no break: fold it into the loop's while, and the if into each branch's when";
        for name in ["global_merge", "shared_merge"] {
            let variant = variant_of(&text, name);
            assert!(variant.contains(note), "{variant}");
            // The break is the stride loop's, not the size loop's.
            assert!(!variant.contains("loop size:"), "{variant}");
        }
        assert!(
            variant_of(&text, "shared_merge").contains("when = \"stride < 1024\""),
            "{text}"
        );
        // Left as it is, the plan launches the shared merge at every
        // stride below LIMIT; the note says so before the check passes.
        let plan = plan(root.path(), "s");
        assert_eq!(plan.variants[1].instances[0].sequence.len(), 60);
        let returned = MERGES.replace(
            "BRANCH",
            "{ shared_merge<<<n / 1024, 512>>>(d, size); if (size == n) return; }",
        );
        let text = draft(&[("m.cu", &returned)], "m.cu", "s").1.unwrap();
        assert!(
            text.contains("ends early (`return` in the if (size == n))"),
            "{text}"
        );
    }

    #[test]
    fn a_multi_pass_reduction_repeats_with_its_loop_variable_in_the_grid() {
        let source = r#"
            #define BLOCK 256
            __global__ void reduce(const float *in, float *out, int n) {
                __shared__ float partial[BLOCK];
                int i = blockIdx.x * 2 * BLOCK + threadIdx.x;
                partial[threadIdx.x] = (i < n ? in[i] : 0) + (i + BLOCK < n ? in[i + BLOCK] : 0);
                __syncthreads();
                if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
            }
            float sum(float *d, int n) {
                cudaMalloc(&d, n * sizeof(float));
                for (int s = n; s > 1; s = (s + 2 * BLOCK - 1) / (2 * BLOCK))
                    reduce<<<(s + 2 * BLOCK - 1) / (2 * BLOCK), BLOCK>>>(d, d, s);
            }
        "#;
        let (root, text) = draft(&[("r.cu", source)], "r.cu", "s");
        let text = text.unwrap();
        for expected in [
            "      { for = \"s\", from = \"N\", while = \"s > 1\", next = \"cdiv(s, 512)\" },  # fill in: from the file's for (int s = n; s > 1; s = (s + 2 * BLOCK - 1) / (2 * BLOCK)), n taken as N\n",
            "    ], block = [256], grid = [\"cdiv(s, 512)\"], args = [\n      { name = \"in\" },\n      { name = \"out\" },\n      { name = \"n\", scalar = \"i32\", value = \"s\" },\n    ] },\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        // No note: the grid's expression is the file's own.
        assert!(!text.contains("# fill in: grid"), "{text}");
        // N = 2^20 elements, then 2048 partial sums, then 4, then 1.
        let launches = &plan(root.path(), "s").variants[0].instances[0].sequence;
        let grids: Vec<u32> = launches.iter().map(|l| l.grid[0]).collect();
        assert_eq!(grids, [2048, 4, 1]);
    }

    #[test]
    fn a_simple_while_loop_repeats_and_a_timing_loop_does_not() {
        let source = r#"
            __global__ void reduce(const float *in, float *out, int n) { out[blockIdx.x] = in[threadIdx.x]; }
            __global__ void scale(float *x, int n) { x[blockIdx.x * blockDim.x + threadIdx.x] *= 2.0f; }
            void run(float *d, int n) {
                int s = n;
                while (s > 1) {
                    int blocks = (s + 255) / 256;
                    reduce<<<blocks, 256>>>(d, d, s);
                    s = blocks;
                }
                for (int r = 0; r < 10; ++r) {
                    scale<<<n / 256, 256>>>(d, n);   // timed
                }
            }
        "#;
        let (root, text) = draft(&[("w.cu", source)], "w.cu", "s");
        let text = text.unwrap();
        assert!(
            text.contains("      { for = \"s\", from = \"N\", while = \"s > 1\", next = \"cdiv(s, 256)\" },  # fill in: from the file's while (s > 1), n taken as N\n    ], block = [256], grid = [\"cdiv(s, 256)\"], args = [\n"),
            "{text}"
        );
        let scale = variant_of(&text, "scale");
        assert!(
            scale.contains("entry = \"scale\"\nverify = \"none\"")
                && scale.contains("# the file launches it inside for (int r = 0; r < 10; ++r), whose variable neither its arguments nor its geometry use: drafted as one launch\nblock = [256]\ngrid = [\"N / 256\"]")
                && !scale.contains("sequence"),
            "{scale}"
        );
        let plan = plan(root.path(), "s");
        assert_eq!(plan.variants[0].instances[0].sequence.len(), 3);
        assert!(plan.variants[1].instances[0].sequence.is_empty());
    }

    #[test]
    fn a_loop_whose_turn_launches_two_kernels_says_how_to_group_them() {
        let source = r#"
            __global__ void fan1(float *m, const float *a, int size, int t) { m[threadIdx.x] = a[t]; }
            __global__ void fan2(float *m, float *a, int size, int j1, int t) { a[threadIdx.x] = m[t]; }
            void forward(float *m, float *a, int size) {
                for (int t = 0; t < size - 1; t++) {
                    fan1<<<size / 256, 256>>>(m, a, size, t);
                    fan2<<<size / 256, 256>>>(m, a, size, size - t, t);
                }
            }
        "#;
        let (_, text) = draft(&[("g.cu", source)], "g.cu", "s");
        let text = text.unwrap();
        assert!(
            variant_of(&text, "fan1").contains("# fill in: the file's for (int t = 0; t < size - 1; t++) launches fan2<<<size / 256, 256>>> in the same turns: this draft repeats only this launch;"),
            "{text}"
        );
        assert!(
            variant_of(&text, "fan2")
                .contains("launches fan1<<<size / 256, 256>>> in the same turns"),
            "{text}"
        );
    }

    #[test]
    fn a_loop_that_swaps_the_launchs_buffers_says_how_to_write_the_ping_pong() {
        let source = r#"
            __global__ void reduce(const float *in, float *out, int n) { out[blockIdx.x] = in[threadIdx.x]; }
            void run(float *d_a, float *d_b, int n) {
                for (int s = n; s > 1; s = (s + 255) / 256) {
                    reduce<<<(s + 255) / 256, 256>>>(d_a, d_b, s);
                    float *t = d_a; d_a = d_b; d_b = t;
                }
            }
        "#;
        let drafted = |source: &str| draft(&[("p.cu", source)], "p.cu", "s").1.unwrap();
        let note = "# fill in: the file swaps {} (passed as {}) inside for (int s = n; s > 1; s = (s + 255) / 256): as drafted, every turn passes them the same way; write a turn as a group of two launches, the second with {} exchanged, repeated half as often";
        let through_temporary = drafted(source);
        assert!(
            through_temporary.contains(&note.replacen("{}", "d_a and d_b", 1).replacen(
                "{}",
                "`in` and `out`",
                2
            )),
            "{through_temporary}"
        );
        let swapped = drafted(&source.replace(
            "float *t = d_a; d_a = d_b; d_b = t;",
            "std::swap(d_b, d_a);",
        ));
        assert!(
            swapped.contains(&note.replacen("{}", "d_b and d_a", 1).replacen(
                "{}",
                "`out` and `in`",
                2
            )),
            "{swapped}"
        );
        // A loop whose variable the launch does not use, but that swaps
        // its buffers, is an iterative solver's: one launch is one sweep.
        let sweeps = drafted(
            r#"
            __global__ void relax(const float *u, float *unew, int n) { unew[threadIdx.x] = u[threadIdx.x]; }
            void run(float *d_u, float *d_v, int n) {
                for (int it = 0; it < 100; ++it) {
                    relax<<<n / 256, 256>>>(d_u, d_v, n);
                    float *t = d_u; d_u = d_v; d_v = t;
                }
            }
        "#,
        );
        assert!(
            sweeps.contains("# the file launches it inside for (int it = 0; it < 100; ++it), swapping d_u and d_v (passed as `u` and `unew`) each turn: drafted as one launch, one of its sweeps;"),
            "{sweeps}"
        );
        // A loop that only shrinks a size swaps no buffer.
        let plain = drafted(&source.replace("float *t = d_a; d_a = d_b; d_b = t;", "n = s;"));
        assert!(!plain.contains("swaps"), "{plain}");
    }

    #[test]
    fn a_loop_header_gpuprof_cannot_read_is_left_for_the_check_to_refuse() {
        let source = r#"
            __global__ void reduce(const float *in, float *out, int n) { out[blockIdx.x] = in[threadIdx.x]; }
            __global__ void step(float *x, int width) { x[threadIdx.x] = 0; }
            void run(float *d, int n) {
                for (int s = n; s > 1; s = next_size(s)) {
                    reduce<<<(s + 255) / 256, 256>>>(d, d, s);
                }
                int w = n;
                while (w > 1) {
                    if (w % 2) w = w / 2 + 1; else w /= 2;
                    step<<<1, 256>>>(d, w);
                }
            }
        "#;
        let (root, text) = draft(&[("u.cu", source)], "u.cu", "s");
        let text = text.unwrap();
        for expected in [
            "# fill in: loop s: gpuprof cannot read all of the file's for (int s = n; s > 1; s = next_size(s)); write next = its next value, an expression over s, N (C's j >>= 1 is floor(j / 2), k <<= 1 is k * 2, k++ is k + 1)\nsequence = [\n",
            "      { for = \"s\", from = \"N\", while = \"s > 1\", next = \"FILL_IN\" },  # fill in: from the file's for (int s = n; s > 1; s = next_size(s)), n taken as N\n",
            // Changed in an `if` before the launch: not read as a loop.
            "# fill in: the file launches it inside while (w > 1), which gpuprof cannot read as a loop: if its turns launch it differently, make this variant a sequence whose step repeats it (repeat = [{ for, from, while, next }], see docs/variants-toml.md)\nblock = [256]\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        let path = root.path().join("s/variants.toml");
        let refused = crate::config::load(&path).unwrap_err().to_string();
        assert!(
            refused.contains("unknown symbol `FILL_IN` in the `next` of loop `s`"),
            "{refused}"
        );
    }

    #[test]
    fn the_baseline_is_the_naive_kernel_or_marked() {
        let source = "__global__ void tiled(float *o) { o[0] = 1; }\n__global__ void MyNaiveOne(float *o) { o[0] = 1; }";
        let (_root, text) = draft(&[("b.cu", source)], "b.cu", "s");
        assert!(
            text.unwrap()
                .contains("baseline = \"MyNaiveOne\"  # its name says naive")
        );
        let source = "__global__ void first(float *o) { o[0] = 1; }\n__global__ void second(float *o) { o[0] = 1; }";
        let (_root, text) = draft(&[("b.cu", source)], "b.cu", "s");
        assert!(text.unwrap().contains(
            "baseline = \"first\"  # fill in: the variant every other variant's output is compared with, and every speedup measured against\n"
        ));
    }

    #[test]
    fn a_file_without_kernels_names_the_headers_that_hold_them() {
        let files = [
            (
                "src/runner.cu",
                "#include <cstdio>\n#include \"kernels.cuh\"\n#include \"absent.cuh\"\nint main() {}\n",
            ),
            (
                "src/kernels.cuh",
                "#include \"kernels/1_naive.cuh\"\n#include \"kernels/2_tiled.cuh\"\n",
            ),
            (
                "src/kernels/1_naive.cuh",
                "__global__ void naive(float *c) { c[0] = 1; }\n",
            ),
            (
                "src/kernels/2_tiled.cuh",
                "#include \"../util.cuh\"\n__global__ void tiled(float *c) { c[0] = 1; }\n",
            ),
            (
                "src/util.cuh",
                "__device__ float twice(float x) { return 2 * x; }\n",
            ),
        ];
        let (root, error) = draft(&files, "src/runner.cu", "suite");
        let typed = |path: &str| root.path().join(path).display().to_string();
        assert_eq!(
            error.unwrap_err(),
            format!(
                "{} defines no __global__ function; the kernels are in the headers it includes: {}, {} — give one of those (`gpuprof init {} --from {}`)",
                typed("src/runner.cu"),
                typed("src/kernels/1_naive.cuh"),
                typed("src/kernels/2_tiled.cuh"),
                typed("suite"),
                typed("src/kernels/1_naive.cuh"),
            )
        );
    }

    #[test]
    fn a_runner_that_launches_its_headers_kernels_drafts_them_from_its_launches() {
        let files = [
            (
                "src/runner.cu",
                "#include \"utils.cuh\"\n#include \"kernels.cuh\"\n\
                 void run_tiled(int M, int N, float *A, float *C) {\n\
                 \x20   dim3 block(256);\n\
                 \x20   dim3 grid(CEIL_DIV(M, 64), CEIL_DIV(N, 64));\n\
                 \x20   tiled<64, 8><<<grid, block>>>(M, N, A, C);\n\
                 }\n\
                 void run_naive(int M, int N, float *A, float *C) {\n\
                 \x20   naive<<<dim3(CEIL_DIV(M, 32), CEIL_DIV(N, 32)), dim3(32, 32)>>>(M, N, A, C);\n\
                 }\n",
            ),
            (
                "src/utils.cuh",
                "#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))\ntypedef float real;\n",
            ),
            (
                "src/kernels.cuh",
                "#include \"kernels/naive.cuh\"\n#include \"kernels/tiled.cuh\"\n",
            ),
            (
                "src/kernels/naive.cuh",
                "__global__ void naive(int M, int N, const real *A, real *C) {\n\
                 \x20   int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;\n\
                 \x20   if (x < M && y < N) C[x * N + y] = A[x * N + y];\n\
                 }\n\
                 __global__ void unused(float *out) { out[threadIdx.x] = 0; }\n",
            ),
            (
                "src/kernels/tiled.cuh",
                "#include <cuda_runtime.h>\n\
                 template <int TILE, int ROWS>\n\
                 __global__ void tiled(int M, int N, const float *A, float *C) {\n\
                 \x20   int x = blockIdx.x * TILE + threadIdx.x % TILE, y = blockIdx.y * TILE + threadIdx.x / TILE * ROWS;\n\
                 \x20   for (int j = 0; j < ROWS; j++) C[x * N + y + j] = A[x * N + y + j];\n\
                 }\n",
            ),
        ];
        let (root, written) = draft(&files, "src/runner.cu", "suite");
        let text = written.unwrap();
        assert!(
            text.contains(
                "# ../src/runner.cu defines no kernel: each variant's source is the file that\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("#   ../src/kernels/naive.cuh\n#   ../src/kernels/tiled.cuh\n"),
            "{text}"
        );
        assert!(
            text.contains("# Not drafted: unused, which the files it includes define and ../src/runner.cu does not launch."),
            "{text}"
        );
        assert!(
            text.contains("baseline = \"naive\"  # its name says naive"),
            "{text}"
        );
        let plan = plan(root.path(), "suite");
        let variant = |name: &str| plan.variants.iter().find(|v| v.name == name).unwrap();
        let kernel = |name: &str| match &variant(name).kind {
            crate::config::plan::VariantKind::Kernel(kernel) => kernel.clone(),
            other => panic!("{other:?}"),
        };
        assert!(
            kernel("naive").path.ends_with("src/kernels/naive.cuh"),
            "{text}"
        );
        assert!(
            kernel("tiled").path.ends_with("src/kernels/tiled.cuh"),
            "{text}"
        );
        assert_eq!(kernel("tiled").entry, "tiled<64, 8>");
        let geometry = |name: &str| {
            let instance = &variant(name).instances[0];
            (instance.grid, instance.block)
        };
        assert!(text.contains("sizes = [1024] "), "{text}");
        assert_eq!(geometry("tiled"), ([16, 16, 1], [256, 1, 1]), "{text}");
        assert_eq!(geometry("naive"), ([32, 32, 1], [32, 32, 1]), "{text}");
        // `real` is the utils header's alias of float: the input is f32.
        assert!(text.contains("{ name = \"A\", buffer = \"f32\""), "{text}");
    }

    #[test]
    fn a_runner_of_a_separately_compiled_project_drafts_the_files_that_define_its_kernels() {
        // Declarations in include/ (found near the runner, as `-I include`
        // finds them), definitions in src/, each compiled on its own; the
        // headers include <stdio.h>, so nvcc compiles the definitions.
        let files = [
            (
                "sgemm/src/utils.cu",
                "#include <stdio.h>\n#include \"utils.cuh\"\n\
                 void call(int M, int N, int K, float *A, float *B, float *C) {\n\
                 \x20   dim3 block(32, 32);\n\
                 \x20   dim3 grid(CEIL_DIV(N, 32), CEIL_DIV(M, 32));\n\
                 \x20   naive<<<grid, block>>>(M, N, K, A, B, C);\n\
                 \x20   tiled<32><<<grid, dim3(1024)>>>(M, N, K, A, B, C);\n\
                 }\n",
            ),
            (
                "sgemm/include/utils.cuh",
                "#pragma once\n#include <stdio.h>\n#include \"kernels.cuh\"\n#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))\n",
            ),
            (
                "sgemm/include/kernels.cuh",
                "#pragma once\n#include <stdio.h>\n\
                 __global__ void naive(int M, int N, int K, float *A, float *B, float *C);\n\
                 template <const int BLOCK>\n\
                 __global__ void tiled(int M, int N, int K, float *A, float *B, float *C);\n",
            ),
            (
                "sgemm/src/naive.cu",
                "#include \"kernels.cuh\"\n\
                 __global__ void naive(int M, int N, int K, float *A, float *B, float *C) {\n\
                 \x20   int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n\
                 \x20   float t = 0;\n\
                 \x20   for (int i = 0; i < K; i++) t += A[y * K + i] * B[i * N + x];\n\
                 \x20   C[y * N + x] = t;\n\
                 }\n",
            ),
            (
                "sgemm/src/tiled.cu",
                "#include \"kernels.cuh\"\n\
                 template <const int BLOCK>\n\
                 __global__ void tiled(int M, int N, int K, float *A, float *B, float *C) {\n\
                 \x20   int x = blockIdx.x * BLOCK + threadIdx.x % BLOCK, y = blockIdx.y * BLOCK + threadIdx.x / BLOCK;\n\
                 \x20   float t = 0;\n\
                 \x20   for (int i = 0; i < K; i++) t += A[y * K + i] * B[i * N + x];\n\
                 \x20   C[y * N + x] = t;\n\
                 }\n\
                 template __global__ void tiled<32>(int M, int N, int K, float *A, float *B, float *C);\n",
            ),
        ];
        let (root, written) = draft(&files, "sgemm/src/utils.cu", "suite");
        let text = written.unwrap();
        assert!(
            text.contains("#   ../sgemm/src/naive.cu\n#   ../sgemm/src/tiled.cu\n"),
            "{text}"
        );
        assert!(
            text.contains("include_dirs = [\"../sgemm/include\"]  # fill in: the folder(s) that hold \"kernels.cuh\""),
            "{text}"
        );
        let plan = plan(root.path(), "suite");
        let kernel = |name: &str| match &plan.variants.iter().find(|v| v.name == name).unwrap().kind
        {
            crate::config::plan::VariantKind::Kernel(kernel) => kernel.clone(),
            other => panic!("{other:?}"),
        };
        let naive = kernel("naive");
        assert!(naive.path.ends_with("sgemm/src/naive.cu"), "{text}");
        assert_eq!(naive.compiler, crate::model::variant::Compiler::Nvcc);
        assert_eq!(
            naive.compiler_reason,
            "a header it includes holds host code: ../include/kernels.cuh includes the host header <stdio.h>"
        );
        assert_eq!(kernel("tiled").entry, "tiled<32>");
        assert!(
            kernel("tiled").path.ends_with("sgemm/src/tiled.cu"),
            "{text}"
        );
        // The definition's body, not the declaration, tells what each
        // pointer is: C is written, A and B only read.
        assert!(text.contains("{ name = \"A\", buffer = \"f32\", count = \"N*N\", fill = \"random\" },  # fill in: its element count (the kernel only reads it)"), "{text}");
        assert!(
            text.contains("{ name = \"C\", buffer = \"f32\", count = \"N*N\", output = true }"),
            "{text}"
        );
    }

    #[test]
    fn a_main_that_launches_nothing_itself_is_pointed_at_the_file_that_does() {
        let files = [
            (
                "p/main.cu",
                "#include \"include/kernels.cuh\"\nfloat call_kernel(int which, float *A, int n);\nint main() { return call_kernel(1, 0, 1 << 20) > 0; }\n",
            ),
            (
                "p/include/kernels.cuh",
                "__global__ void scale(float *A, int n);\n",
            ),
            (
                "p/src/kernels.cu",
                "#include \"kernels.cuh\"\n__global__ void scale(float *A, int n) { A[threadIdx.x] *= 2; }\n",
            ),
            (
                "p/src/utils.cu",
                "#include \"kernels.cuh\"\nfloat call_kernel(int which, float *A, int n) { scale<<<n / 256, 256>>>(A, n); return 0; }\n",
            ),
        ];
        let (_root, written) = draft(&files, "p/main.cu", "suite");
        let message = written.unwrap_err();
        assert!(
            message.contains("main.cu defines no __global__ function and launches none; ")
                && message.contains("p/src/utils.cu near it launches kernels: give that file"),
            "{message}"
        );
    }

    #[test]
    fn a_bool_constant_is_a_template_argument_and_a_quoted_system_header_is_the_compilers() {
        let source = r#"
            #include "assert.h"
            #include <vector>
            #include <torch/extension.h>
            template <const int TILE, const bool DOUBLE_BUFFER>
            __global__ void copy(const float *in, float *out, int n) {
                int i = blockIdx.x * TILE + threadIdx.x;
                if (i < n) out[i] = DOUBLE_BUFFER ? in[i] : 2 * in[i];
            }
            int main() {
                const int TILE = 256;
                const bool ENABLE_DOUBLE_BUFFER = false;
                float *in, *out;
                int n = 1 << 20;
                copy<TILE, ENABLE_DOUBLE_BUFFER><<<n / TILE, TILE>>>(in, out, n);
            }
        "#;
        let (_root, text) = draft(&[("copy.cu", source)], "copy.cu", "s");
        let text = text.unwrap();
        assert!(
            text.contains(
                "entry = \"copy<256, false>\"                # the instance the file launches\n"
            ),
            "{text}"
        );
        assert!(
            std::path::Path::new("/usr/include/assert.h").is_file(),
            "the test needs the C library's headers (Debian's libc6-dev)"
        );
        assert!(!text.contains("assert.h"), "{text}");
        // A library's header found nowhere nvcc looks is named, and the
        // kernels are compiled without the host code that needs it.
        assert!(
            text.contains("device_only = true  # <torch/extension.h> found nowhere (not beside the file, near it"),
            "{text}"
        );
        assert!(!text.contains("<vector>"), "{text}");
    }

    #[test]
    fn a_matrix_the_file_allocates_makes_a_one_dimensional_grid_a_two_dimensional_problem() {
        // liu-xiandong's Sgemv_v0: a warp per row, four rows a block, the
        // sizes read from argv, A allocated M * N floats.
        let source = r#"
            __global__ void sgemv(float *A, float *x, float *y, const int M, const int N) {
                int row = blockIdx.x * blockDim.y + threadIdx.y;
                float sum = 0;
                for (int i = threadIdx.x; i < N; i += 32) sum += A[row * N + i] * x[i];
                if (threadIdx.x == 0) y[row] = sum;
            }
            int main(int argc, char **argv) {
                size_t M = atoi(argv[1]);
                size_t N = atoi(argv[2]);
                size_t bytes_A = sizeof(float) * M * N;
                float *d_A, *d_x, *d_y;
                cudaMalloc(&d_A, bytes_A);
                cudaMalloc(&d_x, sizeof(float) * N);
                cudaMalloc(&d_y, sizeof(float) * M);
                dim3 dimGrid(M / 4);
                dim3 dimBlock(32, 4);
                sgemv<<<dimGrid, dimBlock>>>(d_A, d_x, d_y, M, N);
            }
        "#;
        let (root, text) = draft(&[("sgemv.cu", source)], "sgemv.cu", "s");
        let text = text.unwrap();
        for expected in [
            "sizes = [1024]                # fill in: the problem sizes, each binds N (N×N elements",
            "{ name = \"A\", buffer = \"f32\", count = \"N * N\", fill = \"random\" },  # fill in: the file allocates sizeof(float) * M * N for `d_A`, M, N taken as N",
            "{ name = \"x\", buffer = \"f32\", count = \"N\", fill = \"random\" },  # fill in: the file allocates sizeof(float) * N for `d_x`",
            "{ name = \"y\", buffer = \"f32\", count = \"N\", output = true },  # fill in: the file allocates sizeof(float) * M for `d_y`",
            "{ name = \"M\", scalar = \"i32\", value = \"N\" }",
            "grid = [\"N / 4\"]",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        let plan = plan(root.path(), "s");
        assert_eq!(plan.variants[0].instances[0].grid, [256, 1, 1]);
    }

    #[test]
    fn casts_to_whole_number_types_in_allocations_and_launches_are_read_through() {
        // `(size_t)n * n` keeps a large product from overflowing an int:
        // the count is still n * n; a cast to float is not read.
        let source = r#"
            typedef unsigned long long u64;
            __global__ void matvec(const float *A, const float *x, float *y, float *z, int n) {
                int row = blockIdx.x * blockDim.x + threadIdx.x;
                if (row < n) {
                    float sum = 0.0f;
                    for (int j = 0; j < n; ++j) sum += A[row * n + j] * x[j];
                    y[row] = sum;
                    z[row] = sum;
                }
            }
            int main() {
                int n = 4096;
                float *A, *x, *y, *z;
                cudaMalloc(&A, (size_t)n * n * sizeof(float));
                cudaMalloc(&x, static_cast<u64>(n) * sizeof(float));
                cudaMalloc(&y, sizeof(float) * (long long) n);
                cudaMalloc(&z, (float)n * sizeof(float));
                matvec<<<(int)((n + 255) / 256), 256>>>(A, x, y, z, n);
            }
        "#;
        let (root, text) = draft(&[("mv.cu", source)], "mv.cu", "mv");
        let text = text.unwrap();
        for expected in [
            "{ name = \"A\", buffer = \"f32\", count = \"N * N\", fill = \"random\" },  # the file allocates (size_t)n * n * sizeof(float) for `A`",
            "{ name = \"x\", buffer = \"f32\", count = \"N\", fill = \"random\" },  # the file allocates static_cast<u64>(n) * sizeof(float) for `x`",
            "{ name = \"y\", buffer = \"f32\", count = \"N\", output = true },  # the file allocates sizeof(float) * (long long) n for `y`",
            "grid = [\"cdiv(N, 256)\"]",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        // The float cast is not read: z's count is left to fill in.
        let z = text.lines().find(|l| l.contains("name = \"z\"")).unwrap();
        assert!(!z.contains("the file allocates"), "{z}");
        assert_eq!(
            plan(root.path(), "mv").variants[0].instances[0].grid,
            [16, 1, 1]
        );
    }

    #[test]
    fn a_count_the_file_fixes_with_a_macro_is_its_own_not_a_guess() {
        // CUDA by Example's vector sum: N is a macro both sides use.
        let source = r#"
            #define N (33 * 1024)
            __global__ void add(int *a, int *b, int *c) {
                int tid = threadIdx.x + blockIdx.x * blockDim.x;
                while (tid < N) { c[tid] = a[tid] + b[tid]; tid += blockDim.x * gridDim.x; }
            }
            int main(void) {
                int *dev_a, *dev_b, *dev_c;
                cudaMalloc((void**)&dev_a, N * sizeof(int));
                cudaMalloc((void**)&dev_b, N * sizeof(int));
                cudaMalloc((void**)&dev_c, N * sizeof(int));
                add<<<128, 128>>>(dev_a, dev_b, dev_c);
            }
        "#;
        let (_root, text) = draft(&[("add.cu", source)], "add.cu", "add");
        let text = text.unwrap();
        // The launch names no size: the allocations' N is the file's, and
        // the kernel is compiled with it.
        for expected in [
            "sizes = [33792]                # fill in: the problem sizes, each binds N; 33792 is the file's N; the kernels are compiled with the file's #define N: at another size they still read 33792 (guard it with #ifndef and give it in each variant's defines)\n",
            "{ name = \"a\", buffer = \"i32\", count = \"N\", fill = \"random\" },  # the file allocates N * sizeof(int) for `dev_a` (the kernel only reads it)",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        assert!(!text.contains(", taken as N"), "{text}");
        assert!(!text.contains("defines ="), "{text}");

        // Guarded, -D sets it: every size compiles the kernel with its own.
        let guarded = source.replace(
            "#define N (33 * 1024)",
            "#ifndef N\n#define N (33 * 1024)\n#endif",
        );
        let (root, text) = draft(&[("add.cu", &guarded)], "add.cu", "add");
        let text = text.unwrap();
        for expected in [
            "sizes = [33792]                # fill in: the problem sizes, each binds N; 33792 is the file's N\n",
            "defines = { N = \"N\" }  # the kernel reads the file's N, which an #ifndef lets -D set: each size compiles it with N\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        let planned = plan(root.path(), "add");
        assert_eq!(
            planned.variants[0].instances[0].defines,
            [("N".to_string(), 33792)]
        );
    }

    #[test]
    fn the_size_the_launch_passes_outweighs_a_grid_count_that_sizes_partial_results() {
        // A grid-stride max: the grid is a fixed count of blocks, which
        // also sizes the per-block results; the size is what `n` gets.
        let source = r#"
            const size_t LEN = 4ULL * 1024ULL * 1024ULL;
            const int THREADS = 256;
            __global__ void block_max(const float *in, float *partial, size_t n) {
                __shared__ float best[THREADS];
                float m = -1e30f;
                for (size_t i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += gridDim.x * blockDim.x)
                    m = fmaxf(m, in[i]);
                best[threadIdx.x] = m;
                __syncthreads();
                if (threadIdx.x == 0) partial[blockIdx.x] = best[0];
            }
            int main() {
                const int blocks = 320;
                float *d_in, *d_partial;
                cudaMalloc(&d_in, LEN * sizeof(float));
                cudaMalloc(&d_partial, blocks * sizeof(float));
                block_max<<<blocks, THREADS>>>(d_in, d_partial, LEN);
            }
        "#;
        let (_root, text) = draft(&[("m.cu", source)], "m.cu", "m");
        let text = text.unwrap();
        for expected in [
            "sizes = [4194304]                # fill in: the problem sizes, each binds N; 4194304 is the file's LEN\n",
            "block = [256]\ngrid = [320]\n",
            "{ name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" },  # the file allocates LEN * sizeof(float) for `d_in`",
            "{ name = \"n\", scalar = \"u64\", value = \"N\" },  # fill in: the file passes LEN, taken as N\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        assert!(!text.contains("problem size, not"), "{text}");
    }

    #[test]
    fn an_allocation_sized_by_sizeof_an_element_counts_the_elements() {
        // `sizeof(d[0])` and `sizeof(*h)` measure what the pointers point to.
        let source = r#"
            __global__ void twice(const double *in, double *out, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) out[i] = 2 * in[i];
            }
            int main() {
                int n = 1 << 18;
                double *h_in, *d_in, *d_out;
                cudaMalloc(&d_in, n * sizeof(d_in[0]));
                cudaMalloc(&d_out, sizeof(*h_in) * n);
                twice<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
            }
        "#;
        let (_root, text) = draft(&[("t.cu", source)], "t.cu", "t");
        let text = text.unwrap();
        for expected in [
            "{ name = \"in\", buffer = \"f64\", count = \"N\", fill = \"random\" },  # the file allocates n * sizeof(d_in[0]) for `d_in`",
            "{ name = \"out\", buffer = \"f64\", count = \"N\", output = true },  # the file allocates sizeof(*h_in) * n for `d_out`\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_grid_of_numbers_that_covers_the_files_size_exactly_follows_n() {
        // 4×4 blocks of 4×4 threads over a 16×16 matrix: written by hand.
        let source = r#"
            __global__ void flip(const float *in, float *out, int rows, int cols) {
                int r = blockIdx.y * blockDim.y + threadIdx.y;
                int c = blockIdx.x * blockDim.x + threadIdx.x;
                if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
            }
            int main() {
                const int ROWS = 16;
                const int COLS = 16;
                const dim3 GRID(4, 4);
                const dim3 TPB(4, 4);
                float *d_in, *d_out;
                cudaMalloc(&d_in, ROWS * COLS * sizeof(float));
                cudaMalloc(&d_out, ROWS * COLS * sizeof(float));
                flip<<<GRID, TPB>>>(d_in, d_out, ROWS, COLS);
            }
        "#;
        let (root, text) = draft(&[("f.cu", source)], "f.cu", "f");
        let text = text.unwrap();
        let expected = "grid = [\"cdiv(N, 4)\", \"cdiv(N, 4)\"]  # fill in: the file's grid [4, 4] of blocks of [4, 4] covers its 16×16 elements exactly: written over N\n";
        assert!(text.contains(expected), "{expected}\n{text}");
        assert_eq!(
            plan(root.path(), "f").variants[0].instances[0].grid,
            [4, 4, 1]
        );

        // One dimension; and a grid-stride loop's fixed grid, which covers
        // no size exactly, stays as written.
        for (grid, expected) in [
            (
                "4096",
                "grid = [\"cdiv(N, 256)\"]  # fill in: the file's grid [4096] of blocks of [256] covers its 1,048,576 elements exactly: written over N\n",
            ),
            ("640", "grid = [640]\n"),
        ] {
            let source = saxpy_with(&format!(
                "int n = 1 << 20; float *x, *y;\n\
                 cudaMalloc(&x, n * sizeof(float)); cudaMalloc(&y, n * sizeof(float));\n\
                 saxpy<<<{grid}, 256>>>(n, 2.0f, x, y);"
            ));
            let (_root, text) = draft(&[("s.cu", &source)], "s.cu", "s");
            let text = text.unwrap();
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_grid_of_a_block_count_alone_takes_the_size_from_the_allocations() {
        // The file counts blocks and threads; its buffers hold their product.
        let source = r#"
            static const int BLOCKS = 32;
            static const int THREADS = 128;
            static const int LENGTH = THREADS * BLOCKS;
            __global__ void halve(const float *in, float *out) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                out[i] = in[i] / 2;
            }
            int main() {
                float *d_in, *d_out;
                const size_t bytes = sizeof(float) * LENGTH;
                cudaMalloc(&d_in, bytes);
                cudaMalloc(&d_out, bytes);
                halve<<<BLOCKS, THREADS>>>(d_in, d_out);
            }
        "#;
        let (_root, text) = draft(&[("h.cu", source)], "h.cu", "h");
        let text = text.unwrap();
        for expected in [
            "sizes = [4096]                # fill in: the problem sizes, each binds N; 4096 is the file's LENGTH\n",
            "grid = [\"cdiv(N, 128)\"]  # fill in: the file's grid [32] of blocks of [128] covers its 4,096 elements exactly: written over N\n",
            "{ name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" },  # the file allocates sizeof(float) * LENGTH for `d_in`",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_narrow_integer_the_launch_passes_is_not_said_to_be_taken_as_n() {
        // `op` is a char: it starts at 1, and is not the size.
        let source = r#"
            __global__ void apply(const int *x, int *y, int n, char op) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = op == '+' ? x[i] + 1 : x[i] - 1;
            }
            int main() {
                int n = 1 << 16; char op = '+';
                int *x, *y;
                cudaMalloc(&x, n * sizeof(int)); cudaMalloc(&y, n * sizeof(int));
                apply<<<(n + 255) / 256, 256>>>(x, y, n, op);
            }
        "#;
        let (_root, text) = draft(&[("a.cu", source)], "a.cu", "a");
        let text = text.unwrap();
        for expected in [
            "{ name = \"n\", scalar = \"i32\", value = \"N\" },  # fill in: the file passes n, taken as N\n",
            "{ name = \"op\", scalar = \"i8\", value = 1 },  # fill in: its value\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_buffer_a_helper_allocates_for_its_caller_counts_what_the_caller_asks() {
        // Handed a pointer to the pointer, or the pointer by reference.
        for helper in [
            "void make(float **d, size_t count) { cudaMalloc((void **)d, count * sizeof(float)); }",
            "template <typename T> void make(T &d, size_t count) { cudaMallocManaged(&d, count * sizeof(float)); }",
        ] {
            let source = format!(
                "__global__ void scale(float *x, int n) {{\n\
                 \x20   int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
                 \x20   if (i < n) x[i] *= 2;\n\
                 }}\n\
                 {helper}\n\
                 int main() {{\n\
                 \x20   int n = 1 << 20; float *d_x;\n\
                 \x20   make({}d_x, n);\n\
                 \x20   scale<<<(n + 255) / 256, 256>>>(d_x, n);\n\
                 }}\n",
                if helper.contains("**") { "&" } else { "" }
            );
            let (_root, text) = draft(&[("m.cu", &source)], "m.cu", "m");
            let text = text.unwrap();
            let expected = "{ name = \"x\", buffer = \"f32\", count = \"N\", output = true, fill = \"random\" },  # the file allocates count * sizeof(float) for `d_x`";
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_block_size_the_occupancy_calculator_chooses_is_said_to_be_chosen_when_it_runs() {
        let source = saxpy_with(
            "int n = 1 << 20; float *x, *y; int minGrid, blockSize;\n\
             cudaMalloc(&x, n * sizeof(float)); cudaMalloc(&y, n * sizeof(float));\n\
             cudaOccupancyMaxPotentialBlockSize(&minGrid, &blockSize, saxpy, 0, n);\n\
             int blocks = (n + blockSize - 1) / blockSize;\n\
             saxpy<<<blocks, blockSize>>>(n, 2.0f, x, y);",
        );
        let (_root, text) = draft(&[("s.cu", &source)], "s.cu", "s");
        let text = text.unwrap();
        let expected = "block = [256]  # fill in: threads per block (blockSize is chosen when the program runs, by cudaOccupancyMaxPotentialBlockSize: write the size it picks on your GPU) (the file launches <<<blocks, blockSize>>>)\n";
        assert!(text.contains(expected), "{expected}\n{text}");
    }

    #[test]
    fn a_buffer_passed_from_an_element_on_is_a_one_step_sequence_with_its_offset() {
        // A 1-D stencil whose kernel reads `in[g - R]`: passed its buffers
        // whole, it would read before them.
        let source = r#"
            #define LEN 8192
            #define R 2
            #define TPB 128
            __global__ void smooth(const float *in, float *out) {
                int g = blockIdx.x * blockDim.x + threadIdx.x;
                float sum = 0;
                for (int k = -R; k <= R; k++) sum += in[g + k];
                out[g] = sum;
            }
            int main() {
                float *d_in, *d_out;
                size_t bytes = (LEN + 2 * R) * sizeof(float);
                cudaMalloc(&d_in, bytes);
                cudaMalloc(&d_out, bytes);
                smooth<<<LEN / TPB, TPB>>>(d_in + R, &d_out[R]);
            }
        "#;
        let (root, text) = draft(&[("s.cu", source)], "s.cu", "s");
        let text = text.unwrap();
        for expected in [
            "{ name = \"in\", buffer = \"f32\", count = \"N + 4\", fill = \"random\" },  # the file allocates (LEN + 2 * R) * sizeof(float) for `d_in`\n",
            "sequence = [\n  { entry = \"smooth\", block = [128], grid = [\"N / 128\"], args = [\n    { name = \"in\", offset = 2 },  # the file passes d_in + R\n    { name = \"out\", offset = 2 },  # the file passes &d_out[R]\n  ] },\n]\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        assert!(!text.contains("\nentry = "), "{text}");
        let planned = plan(root.path(), "s");
        let instance = &planned.variants[0].instances[0];
        assert!(
            matches!(&instance.args[0], crate::config::plan::Arg::Buffer(b) if b.count == 8196),
            "{:?}",
            instance.args[0]
        );
        assert_eq!(
            instance.sequence[0].args,
            [
                crate::config::plan::StepArg::Buffer {
                    index: 0,
                    offset: 2
                },
                crate::config::plan::StepArg::Buffer {
                    index: 1,
                    offset: 2
                },
            ]
        );
    }

    /// A file of a saxpy kernel whose `main` is `host`.
    fn saxpy_with(host: &str) -> String {
        format!(
            "#include <vector>\n\
             __global__ void saxpy(int n, float a, const float *x, float *y) {{\n\
             \x20   int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
             \x20   if (i < n) y[i] = a * x[i] + y[i];\n\
             }}\n\
             int main() {{\n{host}\n}}\n"
        )
    }

    #[test]
    fn a_constant_worked_out_from_the_size_follows_n_in_the_launch() {
        // Every name const: the grid was drafted as the file's 16384,
        // unmarked, and stayed so at any other size.
        let source = saxpy_with(
            "const int n = 1 << 22;
             float *dx, *dy;
             cudaMalloc(&dx, n * sizeof(float));
             cudaMalloc(&dy, n * sizeof(float));
             const int threads = 256;
             const int blocks = (n + threads - 1) / threads;
             saxpy<<<blocks, threads, 0, 0>>>(n, 2.0f, dx, dy);",
        );
        let (root, text) = draft(&[("s.cu", &source)], "s.cu", "s");
        let text = text.unwrap();
        assert!(
            text.contains("grid = [\"cdiv(N, 256)\"]  # fill in: from the file's <<<blocks, threads, 0, 0>>>, n taken as N\n"),
            "{text}"
        );
        assert_eq!(
            plan(root.path(), "s").variants[0].instances[0].grid,
            [16384, 1, 1]
        );
    }

    #[test]
    fn a_float_the_launch_writes_as_a_literal_is_its_value() {
        let source = r#"
            __global__ void axpby(float *y, const float *x, float a, double b, float c, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) y[i] = a * x[i] + (float)b * y[i] + c;
            }
            int main() {
                int n = 1 << 20;
                float *x, *y, c = 3.0f;
                cudaMalloc(&x, n * sizeof(float));
                cudaMalloc(&y, n * sizeof(float));
                axpby<<<(n + 255) / 256, 256>>>(y, x, 2.5f, -1e-3, c, n);
            }
        "#;
        let (_root, text) = draft(&[("a.cu", source)], "a.cu", "a");
        let text = text.unwrap();
        for expected in [
            "{ name = \"a\", scalar = \"f32\", value = 2.5 },  # fill in: its value (the file passes 2.5f)\n",
            "{ name = \"b\", scalar = \"f64\", value = -0.001 },  # fill in: its value (the file passes -1e-3)\n",
            // A variable's value is not read: it starts at 1, to fill in.
            "{ name = \"c\", scalar = \"f32\", value = 1 },  # fill in: its value\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn an_allocation_sized_by_a_vectors_size_counts_the_vectors_elements() {
        let source = saxpy_with(
            "const int n = 1 << 22;
             std::vector<float> hx(n, 1.0f), hy(n, 2.0f);
             float *dx, *dy;
             cudaMalloc(&dx, hx.size() * sizeof(float));
             cudaMalloc(&dy, hy.size() * sizeof(float));
             saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, dx, dy);",
        );
        let (_root, text) = draft(&[("v.cu", &source)], "v.cu", "v");
        let text = text.unwrap();
        for expected in [
            "{ name = \"x\", buffer = \"f32\", count = \"N\", fill = \"random\" },  # the file allocates hx.size() * sizeof(float) for `dx`",
            "{ name = \"y\", buffer = \"f32\", count = \"N\", output = true, fill = \"random\" },  # the file allocates hy.size() * sizeof(float) for `dy`",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_thrust_vectors_count_is_the_problem_size_and_its_buffers() {
        // No cudaMalloc: the device_vector's count says what n is, so the
        // kernel's n follows N with the grid (it was the file's 1048576),
        // and what its storage holds.
        let source = r#"
            #include <thrust/device_vector.h>
            __global__ void scale(float *x, float s, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] *= s;
            }
            int main() {
                int n = 1 << 20;
                thrust::device_vector<float> d(n, 1.0f);
                scale<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(d.data()), 0.5f, n);
            }
        "#;
        let (_root, text) = draft(&[("t.cu", source)], "t.cu", "t");
        let text = text.unwrap();
        for expected in [
            "sizes = [1048576]                # fill in: the problem sizes, each binds N; 1048576 is the file's n\n",
            "grid = [\"cdiv(N, 256)\"]  # fill in: from the file's <<<(n + 255) / 256, 256>>>, n taken as N\n",
            "{ name = \"n\", scalar = \"i32\", value = \"N\" },  # fill in: the file passes n, taken as N\n",
            "{ name = \"x\", buffer = \"f32\", count = \"N\", output = true, fill = \"random\" },  # the file allocates n elements for `d`",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        for (argument, vector) in [
            ("thrust::raw_pointer_cast(d.data())", Some("d")),
            ("v.data()", Some("v")),
            ("&h[0]", Some("h")),
            ("d_x", None),
            ("thrust::raw_pointer_cast(&d[1])", None),
        ] {
            assert_eq!(super::vector_storage(argument), vector, "{argument}");
        }
    }

    #[test]
    fn bytes_allocated_for_a_byte_buffer_are_its_count() {
        // No sizeof: `width * height` bytes of `unsigned char` are that
        // many elements; the uchar4 input, with its sizeof, four to each.
        let source = r#"
            __global__ void gray(const uchar4 *rgba, unsigned char *out, int width, int height) {
                int x = blockIdx.x * blockDim.x + threadIdx.x;
                int y = blockIdx.y * blockDim.y + threadIdx.y;
                if (x < width && y < height) {
                    uchar4 p = rgba[y * width + x];
                    out[y * width + x] = (unsigned char)(0.299f * p.x + 0.587f * p.y + 0.114f * p.z);
                }
            }
            int main() {
                int width = 1920, height = 1080;
                uchar4 *d_rgba; unsigned char *d_out;
                cudaMalloc(&d_rgba, width * height * sizeof(uchar4));
                cudaMalloc(&d_out, width * height);
                dim3 block(16, 16);
                dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
                gray<<<grid, block>>>(d_rgba, d_out, width, height);
            }
        "#;
        let (root, text) = draft(&[("g.cu", source)], "g.cu", "g");
        let text = text.unwrap();
        for expected in [
            "{ name = \"rgba\", buffer = \"u8\", count = \"4 * N * floor(N * 9 / 16)\", fill = \"random\" },  # the file allocates width * height * sizeof(uchar4) for `d_rgba`",
            "{ name = \"out\", buffer = \"u8\", count = \"N * floor(N * 9 / 16)\", output = true },  # the file allocates width * height for `d_out`",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        let plan = plan(root.path(), "g");
        assert_eq!(plan.variants[0].instances[0].grid, [120, 68, 1]);
    }

    #[test]
    fn sides_the_file_sets_apart_keep_their_proportion_to_n() {
        // An image of 1920 × 1080: width is N, height keeps 9/16 of it, so
        // the draft is the file's own shape at its size, not 1024 × 1024.
        let image = r#"
            __global__ void gray(const unsigned char *rgb, unsigned char *out, int width, int height) {
                int x = blockIdx.x * blockDim.x + threadIdx.x;
                int y = blockIdx.y * blockDim.y + threadIdx.y;
                if (x < width && y < height) {
                    int i = y * width + x;
                    out[i] = (rgb[3 * i] + rgb[3 * i + 1] + rgb[3 * i + 2]) / 3;
                }
            }
            int main() {
                const int width = 1920, height = 1080;
                unsigned char *d_rgb, *d_out;
                cudaMalloc(&d_rgb, width * height * 3);
                cudaMalloc(&d_out, width * height);
                dim3 block(16, 16);
                dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
                gray<<<grid, block>>>(d_rgb, d_out, width, height);
            }
        "#;
        let (root, text) = draft(&[("g.cu", image)], "g.cu", "g");
        let text = text.unwrap();
        for expected in [
            "sizes = [1920]                # fill in: the problem sizes, each binds N; 1920 is the file's width (a kernel indexes in 2-D; the file's other sides are drafted as height = floor(N * 9 / 16))\n",
            "grid = [\"cdiv(N, 16)\", \"cdiv(floor(N * 9 / 16), 16)\"]",
            "{ name = \"rgb\", buffer = \"u8\", count = \"N * floor(N * 9 / 16) * 3\", fill = \"random\" },  # the file allocates width * height * 3 for `d_rgb`",
            "{ name = \"width\", scalar = \"i32\", value = \"N\" },  # fill in: the file passes width, taken as N\n",
            "{ name = \"height\", scalar = \"i32\", value = \"floor(N * 9 / 16)\" },  # fill in: the file passes height, taken as floor(N * 9 / 16)\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        let image_plan = plan(root.path(), "g");
        assert_eq!(image_plan.variants[0].instances[0].grid, [120, 68, 1]);

        // A matrix product of 512 × 256 by 256 × 1024: N and M are sides
        // (M half of N); K, which no grid covers, is passed as it is.
        let matmul = r#"
            __global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K) {
                int row = blockIdx.y * blockDim.y + threadIdx.y;
                int col = blockIdx.x * blockDim.x + threadIdx.x;
                if (row < M && col < N) {
                    float sum = 0.0f;
                    for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
                    C[row * N + col] = sum;
                }
            }
            int main() {
                int M = 512, N = 1024, K = 256;
                float *dA, *dB, *dC;
                cudaMalloc(&dA, M * K * sizeof(float));
                cudaMalloc(&dB, K * N * sizeof(float));
                cudaMalloc(&dC, M * N * sizeof(float));
                dim3 block(16, 16);
                dim3 grid((N + 15) / 16, (M + 15) / 16);
                matmul<<<grid, block>>>(dA, dB, dC, M, N, K);
            }
        "#;
        let (root, text) = draft(&[("m.cu", matmul)], "m.cu", "m");
        let text = text.unwrap();
        for expected in [
            "sizes = [1024]",
            "the file's other sides are drafted as M = floor(N / 2))\n",
            "{ name = \"A\", buffer = \"f32\", count = \"floor(N / 2) * 256\", fill = \"random\" },",
            "{ name = \"C\", buffer = \"f32\", count = \"floor(N / 2) * N\", output = true },",
            "{ name = \"M\", scalar = \"i32\", value = \"floor(N / 2)\" },",
            "{ name = \"K\", scalar = \"i32\", value = 256 },",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        let plan = plan(root.path(), "m");
        assert_eq!(plan.variants[0].instances[0].grid, [64, 32, 1]);
    }

    #[test]
    fn a_volume_of_sides_apart_is_what_a_flat_kernel_covers() {
        // 100 × 100 × 1000 = the file's N: the 3-D kernel's sides are nx
        // and ny (N) and nz (N * 10), bounds of its threads though its
        // subscript reads them through `idx`; the 1-D kernel beside it
        // covers all N * N * (N * 10) elements.
        let source = r#"
            #define N 10000000
            __global__ void add1d(float *a, float *b, float *c, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) c[i] = a[i] + b[i];
            }
            __global__ void add3d(float *a, float *b, float *c, int nx, int ny, int nz) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                int j = blockIdx.y * blockDim.y + threadIdx.y;
                int k = blockIdx.z * blockDim.z + threadIdx.z;
                if (i < nx && j < ny && k < nz) {
                    int idx = i + j * nx + k * nx * ny;
                    c[idx] = a[idx] + b[idx];
                }
            }
            int main() {
                float *d_a, *d_b, *d_c;
                cudaMalloc(&d_a, N * sizeof(float));
                cudaMalloc(&d_b, N * sizeof(float));
                cudaMalloc(&d_c, N * sizeof(float));
                add1d<<<(N + 1023) / 1024, 1024>>>(d_a, d_b, d_c, N);
                int nx = 100, ny = 100, nz = 1000;
                dim3 block(16, 8, 8);
                dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y, (nz + block.z - 1) / block.z);
                add3d<<<grid, block>>>(d_a, d_b, d_c, nx, ny, nz);
            }
        "#;
        let (root, text) = draft(&[("v.cu", source)], "v.cu", "v");
        let text = text.unwrap();
        for expected in [
            "sizes = [100]                # fill in: the problem sizes, each binds N; 100 is the file's nx, ny (a kernel indexes in 3-D; the file's other sides are drafted as nz = N * 10)\n",
            "{ name = \"n\", scalar = \"i32\", value = \"N * N * (N * 10)\" },",
            "grid = [\"cdiv(N, 16)\", \"cdiv(N, 8)\", \"cdiv(N * 10, 8)\"]",
            "{ name = \"ny\", scalar = \"i32\", value = \"N\" },",
            "{ name = \"nz\", scalar = \"i32\", value = \"N * 10\" },  # fill in: the file passes nz, taken as N * 10\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        let plan = plan(root.path(), "v");
        assert_eq!(plan.variants[1].instances[0].grid, [7, 13, 125]);
        assert_eq!(plan.variants[0].instances[0].grid, [9766, 1, 1]);
    }

    #[test]
    fn a_side_is_kept_in_proportion_as_a_whole_number() {
        assert_eq!(super::in_proportion(1080, 1920), "floor(N * 9 / 16)");
        assert_eq!(super::in_proportion(512, 1024), "floor(N / 2)");
        assert_eq!(super::in_proportion(1000, 100), "N * 10");
        assert_eq!(super::in_proportion(1000, 513), "1000");
        assert_eq!(
            super::elements_of(2, &[("b".into(), "1000".into())]),
            "N * 1000"
        );
        assert_eq!(
            super::bound_of(2, &[("b".into(), "1000".into())], 513),
            "1000 * 1000"
        );
        assert_eq!(
            super::elements_of(3, &[("z".into(), "N * 10".into())]),
            "N * N * (N * 10)"
        );
        let found = |pairs: &[(&str, i64)]| -> Vec<(String, i64)> {
            pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
        };
        // The value most names hold is N, the largest of as many; a side
        // of 1 stays 1, however far apart.
        let (n, apart) =
            super::sides_apart(&found(&[("nx", 100), ("ny", 100), ("nz", 1000)]), 3).unwrap();
        assert_eq!(
            (n, apart),
            (100, vec![("nz".to_string(), "N * 10".to_string())])
        );
        let (n, apart) = super::sides_apart(&found(&[("h", 1080), ("w", 1920)]), 2).unwrap();
        assert_eq!(
            (n, apart),
            (
                1920,
                vec![("h".to_string(), "floor(N * 9 / 16)".to_string())]
            )
        );
        let (n, apart) = super::sides_apart(&found(&[("batch", 1), ("width", 4096)]), 2).unwrap();
        assert_eq!(
            (n, apart),
            (4096, vec![("batch".to_string(), "1".to_string())])
        );
        // A side more than 64× smaller stays the file's number (a batch
        // of 8 beside 1024 tokens).
        let (n, apart) = super::sides_apart(&found(&[("B", 8), ("T", 1024)]), 2).unwrap();
        assert_eq!((n, apart), (1024, vec![("B".to_string(), "8".to_string())]));
        // More values than sides, a value 64× larger than the one most
        // names hold (a count), or one dimension: none.
        assert!(super::sides_apart(&found(&[("a", 1), ("b", 2), ("c", 3)]), 2).is_none());
        assert!(
            super::sides_apart(&found(&[("n", 1024), ("m", 1024), ("total", 1 << 20)]), 2)
                .is_none()
        );
        assert!(super::sides_apart(&found(&[("w", 1920), ("h", 1080)]), 1).is_none());
    }

    #[test]
    fn a_kernel_that_scales_its_index_takes_that_many_elements_a_thread() {
        let source = r#"
            #define VEC 4
            __global__ void twice(float *a, float *c) {
                int idx = (threadIdx.x + blockIdx.x * blockDim.x) * 2;
                c[idx] = a[idx]; c[idx + 1] = a[idx + 1];
            }
            __global__ void quad(float *a, float *c) {
                int idx = VEC * (blockIdx.x * blockDim.x + threadIdx.x);
                for (int j = 0; j < VEC; j++) c[idx + j] = a[idx + j];
            }
            __global__ void once(float *a, float *c) {
                int idx = threadIdx.x + blockIdx.x * blockDim.x;
                c[idx] = a[idx] * 2;
            }
            __global__ void pairs(float *x, float *out) {
                int idx = blockIdx.x * blockDim.x + threadIdx.x;
                float x1 = x[idx * 2], x2 = x[idx * 2 + 1];
                out[idx * 2] = x2; out[idx * 2 + 1] = x1;
            }
            __global__ void packed(float *x, float *out) {
                int i = blockDim.x * blockIdx.x + threadIdx.x;
                reinterpret_cast<float4 *>(&out[4 * i])[0] = reinterpret_cast<float4 *>(&x[4 * i])[0];
            }
        "#;
        let (_root, text) = draft(&[("v.cu", source)], "v.cu", "s");
        let text = text.unwrap();
        for expected in [
            "grid = [\"cdiv(N, 512)\"]  # fill in: blocks per grid, an expression over N; each thread's index is scaled by 2 (`(threadIdx.x+blockIdx.x*blockDim.x) * 2`)\n",
            "grid = [\"cdiv(N, 1024)\"]  # fill in: blocks per grid, an expression over N; each thread's index is scaled by 4 (`VEC * (blockIdx.x*blockDim.x+threadIdx.x)`)\n",
            "grid = [\"cdiv(N, 512)\"]  # fill in: blocks per grid, an expression over N; each thread's index is scaled by 2 (`[idx * 2`)\n",
            "grid = [\"cdiv(N, 1024)\"]  # fill in: blocks per grid, an expression over N; each thread's index is scaled by 4 (`4 * i]`)\n",
            "grid = [\"cdiv(N, 256)\"]  # fill in: blocks per grid, an expression over N\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn a_buffer_of_structs_or_vectors_holds_their_components() {
        // An array of structures, the classic before of a coalescing step.
        let source = r#"
            typedef struct { float x,y,z; } Vec3;
            __global__ void add_aos(const Vec3* a, const Vec3* b, Vec3* c, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
                c[i].x = a[i].x + b[i].x; c[i].y = a[i].y + b[i].y; c[i].z = a[i].z + b[i].z;
            }
            __global__ void copy4(const float4 *in, float4 *out) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                out[i] = in[i];
            }
            __global__ void scale4(float4 *v, int n) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) { v[i].x *= 2; v[i].y *= 2; v[i].z *= 2; v[i].w *= 2; }
            }
            int main() {
                int n = 1 << 20; size_t bytes = n * sizeof(Vec3);
                Vec3 *d_a, *d_b, *d_c;
                cudaMalloc(&d_a, bytes); cudaMalloc(&d_b, bytes); cudaMalloc(&d_c, bytes);
                add_aos<<<(n + 255) / 256, 256>>>(d_a, d_b, d_c, n);
                float *d_f; cudaMalloc(&d_f, n * sizeof(float));
                copy4<<<n / 4 / 256, 256>>>((const float4 *)d_f, reinterpret_cast<float4 *>(d_f));
            }
        "#;
        let (root, text) = draft(&[("aos.cu", source)], "aos.cu", "s");
        let text = text.unwrap();
        for expected in [
            "{ name = \"a\", buffer = \"f32\", count = \"3 * N\", fill = \"random\" },  # the file allocates n * sizeof(Vec3) for `d_a`",
            "{ name = \"c\", buffer = \"f32\", count = \"3 * N\", output = true },  # the file allocates n * sizeof(Vec3) for `d_c`",
            "{ name = \"v\", buffer = \"f32\", count = \"4*N\", output = true, fill = \"random\" },  # fill in: its element count, 4 to each `float4`",
            // Allocated as floats, passed as float4s: one to each float.
            "{ name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" },  # the file allocates n * sizeof(float) for `d_f`",
            "{ name = \"out\", buffer = \"f32\", count = \"N\", output = true },  # the file allocates n * sizeof(float) for `d_f`",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        plan(root.path(), "s");
    }

    #[test]
    fn per_block_partial_sums_are_counted_by_the_grid_and_compared_by_their_sum() {
        let source = r#"
            #define THREADS 256
            __global__ void reduce_v0(float *in, float *out) {
                __shared__ float s[THREADS];
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                s[threadIdx.x] = in[i];
                __syncthreads();
                for (int k = 1; k < THREADS; k *= 2) {
                    if (threadIdx.x % (2 * k) == 0) s[threadIdx.x] += s[threadIdx.x + k];
                    __syncthreads();
                }
                if (threadIdx.x == 0) out[blockIdx.x] = s[0];
            }
            __global__ void reduce_two(float *in, float *out) {
                __shared__ float s[THREADS];
                int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
                s[threadIdx.x] = in[i] + in[i + blockDim.x];
                __syncthreads();
                if (threadIdx.x == 0) { float t = 0; for (int k = 0; k < THREADS; k++) t += s[k]; out[blockIdx.x] = t; }
            }
            __global__ void scatter(float *in, float *out) {
                out[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x];
            }
            __global__ void reduce_atomic(const float *in, float *out) {
                float v = in[blockIdx.x * blockDim.x + threadIdx.x];
                for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
                if ((threadIdx.x & 31) == 0) atomicAdd(&out[blockIdx.x], v);
            }
            __global__ void reduce_total(const float *in, float *total) {
                float v = in[blockIdx.x * blockDim.x + threadIdx.x];
                for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
                if ((threadIdx.x & 31) == 0) atomicAdd(total, v);
            }
            int main() {
                const int N = 1 << 24;
                float *d_in, *d_out;
                cudaMalloc(&d_in, N * sizeof(float));
                cudaMalloc(&d_out, N / THREADS * sizeof(float));
                reduce_v0<<<N / THREADS, THREADS>>>(d_in, d_out);
                reduce_two<<<N / THREADS / 2, THREADS>>>(d_in, d_out);
                scatter<<<N / THREADS, THREADS>>>(d_in, d_out);
                reduce_atomic<<<N / THREADS, THREADS>>>(d_in, d_out);
                reduce_total<<<N / THREADS, THREADS>>>(d_in, d_out);
            }
        "#;
        let (root, text) = draft(&[("r.cu", source)], "r.cu", "s");
        let text = text.unwrap();
        for expected in [
            "{ name = \"out\", buffer = \"f32\", count = \"N / 256\", output = true, compare = \"sum\" },  # one partial result a block (out[blockIdx.x]): as many as the grid's blocks, compared by their sum\n",
            "{ name = \"out\", buffer = \"f32\", count = \"floor(N / 256) / 2\", output = true, compare = \"sum\" },",
            // Each warp adds to its block's partial: they start at zero.
            "{ name = \"out\", buffer = \"f32\", count = \"N / 256\", output = true, fill = \"zeros\", compare = \"sum\" },  # one partial result a block (out[blockIdx.x]): as many as the grid's blocks, compared by their sum, each added to from zero",
            // One total that every warp adds to: a single value, from zero.
            "{ name = \"total\", buffer = \"f32\", count = 1, output = true, fill = \"zeros\", compare = \"sum\" },  # one result for the whole grid (only total's first element is written): compared by its sum, added to from zero",
            // Written at every thread's element: compared element by element.
            "{ name = \"out\", buffer = \"f32\", count = \"N / 256\", output = true },  # the file allocates",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        plan(root.path(), "s");
    }

    #[test]
    fn a_block_past_cudas_limits_at_the_suites_size_is_left_to_fill_in() {
        // The wrapper's `r` is passed to the kernel as a size, so it is
        // taken as N: 2 * N + 1 threads a side would be over 1024.
        let source = r#"
            __global__ void splat(float *v, int dx, int r) {
                int x = threadIdx.x, y = threadIdx.y;
                v[y * dx + x] += 1.0f / (1 + abs(x - r) + abs(y - r));
            }
            extern "C" void add_splat(float *v, int dx, int r) {
                dim3 tids(2 * r + 1, 2 * r + 1);
                splat<<<1, tids>>>(v, dx, r);
            }
        "#;
        let (root, text) = draft(&[("s.cu", source)], "s.cu", "s");
        let text = text.unwrap();
        let expected = "block = [16, 16]  # fill in: threads per block (the kernel indexes threadIdx in 2-D) (the file launches <<<1, tids>>>)\n";
        assert!(text.contains(expected), "{expected}\n{text}");
        plan(root.path(), "s");
    }

    #[test]
    fn a_capped_grid_follows_n_with_the_initializer_of_its_own_host_function() {
        // Each wrapper names its grid `blocks`, capped for a grid-stride
        // loop: each launch reads the `blocks` declared above it.
        let source = r#"
            #include <algorithm>
            __global__ void sum(const int *in, int *out, int n) {
                int s = 0;
                for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s += in[i];
                atomicAdd(out, s);
            }
            __global__ void sum_pairs(const int *in, int *out, int n) {
                int s = 0;
                for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 2; i += blockDim.x * gridDim.x) s += in[2 * i] + in[2 * i + 1];
                atomicAdd(out, s);
            }
            void run_sum(int *in, int *out, int n) {
                int threads = 256;
                int blocks = std::min((n + threads - 1) / threads, 2048);
                sum<<<blocks, threads>>>(in, out, n);
            }
            void run_pairs(int *in, int *out, int n) {
                int threads = 256;
                int blocks = max((n / 2 + threads - 1) / threads, 1);
                sum_pairs<<<blocks, threads>>>(in, out, n);
            }
        "#;
        let (root, text) = draft(&[("r.cu", source)], "r.cu", "s");
        let text = text.unwrap();
        for expected in [
            "grid = [\"min(cdiv(N, 256), 2048)\"]  # fill in: from the file's <<<blocks, threads>>>, n taken as N\n",
            "grid = [\"max(cdiv(floor(N / 2), 256), 1)\"]  # fill in: from the file's <<<blocks, threads>>>, n taken as N\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        plan(root.path(), "s");
    }

    #[test]
    fn a_histogram_starts_its_bins_at_zero_and_asks_for_the_range_its_input_indexes_with() {
        let source = r#"
            #include <vector>
            constexpr int BINS = 8;
            __global__ void count_letters(const char *text, unsigned *bins, int n) {
                __shared__ unsigned local[BINS];
                if (threadIdx.x < BINS) local[threadIdx.x] = 0;
                __syncthreads();
                for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
                    int letter = text[i] - 'a';
                    atomicAdd(&local[letter / 4], 1u);
                }
                __syncthreads();
                if (threadIdx.x < BINS) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
            }
            int main() {
                int n = 1 << 20;
                std::vector<char> h_text(n, 'a');
                char *d_text;
                unsigned *d_bins;
                cudaMalloc(&d_text, n);
                cudaMemcpy(d_text, h_text.data(), n, cudaMemcpyHostToDevice);
                cudaMalloc(&d_bins, BINS * sizeof(unsigned));
                cudaMemset(d_bins, 0, BINS * sizeof(unsigned));
                count_letters<<<n / 256, 256>>>(d_text, d_bins, n);
            }
        "#;
        let (root, text) = draft(&[("h.cu", source)], "h.cu", "s");
        let text = text.unwrap();
        for expected in [
            // Bytes allocated for chars: the count is n, which follows N.
            "{ name = \"text\", buffer = \"i8\", count = \"N\", fill = \"random\" },  # fill in: the kernel indexes `local[letter / 4]` with values it reads from `text`, and gpuprof fills it with 0 to 99 at random: give the range the file's values lie in, range = [low, high]; the file allocates n for `d_text`",
            // Only added to: from zero, as the file's cudaMemset leaves it.
            "{ name = \"bins\", buffer = \"u32\", count = 8, output = true, fill = \"zeros\" },  # the file allocates BINS * sizeof(unsigned) for `d_bins`; the kernel only adds to it with atomics: filled with zeros, then compared\n",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        plan(root.path(), "s");
        // Where the file draws the letters (`'a' + rand() % 26`), the
        // buffer is drawn alike and nothing is left to fill in.
        let drawn = source.replace(
            "std::vector<char> h_text(n, 'a');",
            "std::vector<char> h_text(n); for (int i = 0; i < n; i++) h_text[i] = 'a' + rand() % 26;",
        );
        let (root, text) = draft(&[("h.cu", &drawn)], "h.cu", "s");
        let expected = "{ name = \"text\", buffer = \"i8\", count = \"N\", fill = \"random\", range = [97, 123] },  # the kernel indexes `local[letter / 4]` with its values: drawn as the file draws them, 'a' + rand() % 26; the file allocates n for `d_text`";
        let text = text.unwrap();
        assert!(text.contains(expected), "{expected}\n{text}");
        plan(root.path(), "s");
    }
}
