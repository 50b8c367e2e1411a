//! `models`: detect, inspect and convert legacy Japanese hobby-engine 3D models.
//!
//! Exit status: 0 when every file was fine, 1 when any file failed (each failure is reported on
//! stderr with its path and position, and the other files are still processed), 2 for a usage
//! error.

use clap::{Parser, Subcommand};
use models::Format;
use std::path::PathBuf;
use std::process::ExitCode;

/// Lets the allocator reuse the memory of the large arrays a conversion frees (issue 18).
/// glibc's `malloc` gives a block of 128 KiB or more its own fresh mapping and unmaps it when
/// freed, so each array a conversion makes (the file's bytes, the document, the scene, the
/// writer's buffers) costs a page fault per 4 KiB, even where the previous step had just freed
/// as much. After a mapped block is freed, it serves blocks up to that size from its heap
/// instead, where freed memory is reused. One block of 31 MiB (just under its 32 MiB
/// maximum), never touched and so never faulted in, is reserved and freed here first. Other
/// allocators ignore this.
fn keep_freed_blocks() {
    drop(std::hint::black_box(Vec::<u8>::with_capacity(31 << 20)));
}

/// `println!` for results on standard output. `println!` panics when stdout is closed
/// (`models info *.smf | head -1`); this ends the process quietly instead, with 141 (128 +
/// SIGPIPE, what a shell reports for a writer killed by the closed pipe), after removing any
/// temporary output files. Another write error is reported and ends the process with 1.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::write_stdout_line(format_args!($($arg)*))
    };
}

mod convert;
mod gather;
mod huge_pages;
mod info;
mod pack;
mod said;

#[derive(Parser)]
#[command(
    name = "models",
    version,
    about = "Detect, inspect and convert legacy Japanese hobby-engine 3D models: Selene .smf, \
             EditAnimation .skm, Elfreina .elem, Altseed .mdl and BaseCross .bmf (and Selene \
             .Pack archives), to glTF 2.0 (.glb/.gltf).",
    long_about = None
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// List every warning, and the notes (what a conversion always does with a part glTF
    /// cannot carry); by default warnings of one kind are one line with a count.
    #[arg(short, long, global = true)]
    verbose: bool,
    /// Print no warnings or notes (errors still are).
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Print each file's format, detected from its first bytes (or `unknown`).
    Detect(Deferred<DetectArgs>),
    /// Print what is in each file: size, meshes, bones (or frames), clips, materials and
    /// whether their textures are found; `.glb`/`.gltf` files too.
    Info(Deferred<info::Args>),
    /// Convert models to glTF 2.0 (`.glb`, or `.gltf` with a `.bin`), glTF back into a model
    /// format, or one model format into another (through the same scene).
    ///
    /// Usage forms:
    ///   models convert IN OUT.glb|OUT.gltf
    ///   models convert IN.glb|IN.gltf|IN.<model> OUT.<model> [--base FILE] [--clip NAME]
    ///       [--replace-bad-names]
    ///   models convert [--to glb|gltf|smf|bmf|mdl|elem|skm] --out-dir DIR [--recursive] INPUT...
    ///   models convert --merge-clips INPUT... OUT.glb|OUT.gltf
    ///
    /// A model output of the input's own format re-writes the document as it is. Importing
    /// (glTF or another format into a model) works for all five formats. --base gives the
    /// original file of the output's format: it fills in what glTF does not carry, a mesh an
    /// editor gave back unchanged (Blender splits vertices) gets its exact vertices again, and
    /// a skeleton and clips that move as the base's (Blender turns bones and resamples clips)
    /// get the base's exact bones and keys again.
    ///
    /// Never writes onto an input (clashing batch outputs get distinct names, with a note);
    /// refuses existing outputs unless --force is given; writes through temporary files
    /// renamed into place, removed on SIGINT/SIGTERM/SIGHUP. Reads regular files only.
    ///
    /// A model inside a Selene `.Pack` is named PACK::NAME (e.g. `Data.Pack::Model\x.smf`);
    /// a pack given to --out-dir converts every model inside it, keeping its folders.
    #[command(verbatim_doc_comment)]
    // The comment is `models convert --help` verbatim: `<model>` there is text, not HTML.
    #[allow(rustdoc::invalid_html_tags)]
    Convert(Deferred<convert::Args>),
    /// Selene/Lue `.Pack` archives: list, extract, create, replace entries.
    Pack(Deferred<PackArgs>),
}

#[derive(clap::Args)]
struct DetectArgs {
    /// Files to look at. A `.Pack` archive is listed with every model inside it.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    password: pack::PasswordArg,
}

#[derive(clap::Args)]
struct PackArgs {
    #[command(subcommand)]
    command: pack::PackCommand,
}

/// A subcommand's arguments, added to its `clap::Command` only when that subcommand is the
/// one run (or its help is asked for): [`clap::Command::defer`]. Building every subcommand's
/// arguments up front was most of the instructions of `models --version` (144 K of 226 K)
/// and a tenth of a small conversion's; each run needs one subcommand's.
struct Deferred<T>(T);

impl<T: clap::Args> clap::Args for Deferred<T> {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.defer(|cmd| keeping_about(cmd, T::augment_args))
    }
    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        cmd.defer(|cmd| keeping_about(cmd, T::augment_args_for_update))
    }
    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }
}

/// `augment` applied to `cmd`, which keeps its about texts. Run eagerly, the derive sets the
/// subcommand's (its variant's doc comment) after adding the arguments; deferred, the
/// arguments come last, and a flattened struct's doc comment (`pack::PasswordArg`'s) would
/// replace the subcommand's in its `--help`.
fn keeping_about(cmd: clap::Command, augment: fn(clap::Command) -> clap::Command) -> clap::Command {
    use clap::builder::Resettable;
    let kept = |text: Option<&clap::builder::StyledStr>| {
        text.cloned().map_or(Resettable::Reset, Resettable::Value)
    };
    let (about, long_about) = (kept(cmd.get_about()), kept(cmd.get_long_about()));
    augment(cmd).about(about).long_about(long_about)
}

impl<T: clap::FromArgMatches> clap::FromArgMatches for Deferred<T> {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Deferred)
    }
    fn from_arg_matches_mut(matches: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(matches).map(Deferred)
    }
    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }
    fn update_from_arg_matches_mut(
        &mut self,
        matches: &mut clap::ArgMatches,
    ) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(matches)
    }
}

fn main() -> ExitCode {
    keep_freed_blocks();
    let cli = Cli::parse();
    said::set_verbosity(if cli.quiet {
        said::Verbosity::Quiet
    } else if cli.verbose {
        said::Verbosity::Verbose
    } else {
        said::Verbosity::Grouped
    });
    let ok = match cli.command {
        Command::Detect(Deferred(DetectArgs { files, password })) => detect(&files, &password),
        Command::Info(Deferred(args)) => {
            huge_pages::run_again_if_large(args.named_inputs());
            info::run(&args)
        }
        Command::Convert(Deferred(args)) => {
            huge_pages::run_again_if_large(args.named_inputs());
            // A batch catches them once its inputs are gathered: a large file found in a
            // folder may still make it start again (`huge_pages`).
            if !args.is_batch() {
                remove_temporaries_on_interruption(Writers::One);
            }
            convert::run(&args)
        }
        Command::Pack(Deferred(PackArgs { command })) => {
            remove_temporaries_on_interruption(Writers::One);
            pack::run(&command)
        }
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// How many threads of a command write outputs: what catching interruptions may cost.
#[derive(Clone, Copy)]
pub(crate) enum Writers {
    /// Only the main thread: signals are caught without a thread (`models::output`'s flags).
    One,
    /// A batch's threads: a handler thread, which takes the temporaries' lock.
    Several,
}

/// On SIGINT, SIGTERM or SIGHUP, removes the temporary files of outputs being written and
/// exits with 128 + the signal number (as a shell reports a process killed by it).
///
/// A thread would cost a small conversion about a tenth of its CPU time (BENCHMARKS.md), so a
/// command that writes from one thread records the signal in `models::output`'s flags
/// instead: the handler ends the process at once while no temporary exists, and otherwise
/// `models::output` removes them and exits at its next step (a write, a sync, a rename).
#[cfg(unix)]
pub(crate) fn remove_temporaries_on_interruption(writers: Writers) {
    let caught = match writers {
        Writers::Several => catch_on_a_thread(),
        Writers::One => catch_without_a_thread(),
    };
    // A warning like any other: `-q` silences it.
    if let (Err(e), false) = (caught, said::is_quiet()) {
        eprintln!(
            "warning: cannot catch interruptions ({e}): an interrupted run may leave temporary files"
        );
    }
}

#[cfg(unix)]
const INTERRUPTIONS: [i32; 3] = {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    [SIGINT, SIGTERM, SIGHUP]
};

/// A thread waits for the signal, then removes the temporaries under their lock.
#[cfg(unix)]
fn catch_on_a_thread() -> std::io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new(INTERRUPTIONS)?;
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            models::output::remove_temporaries_and_exit(128 + signal);
        }
    });
    Ok(())
}

/// The handler records the signal for `models::output`, and ends the process itself while
/// no temporary exists.
#[cfg(unix)]
fn catch_without_a_thread() -> std::io::Result<()> {
    use signal_hook::flag;
    let flags = models::output::interruption_flags();
    for signal in INTERRUPTIONS {
        // The recording first: a signal that finds temporaries must leave its number.
        let number = usize::try_from(signal).unwrap_or(0);
        flag::register_usize(signal, flags.pending_signal.clone(), number)?;
        flag::register_conditional_shutdown(signal, 128 + signal, flags.no_temporaries.clone())?;
    }
    Ok(())
}

#[cfg(not(unix))]
pub(crate) fn remove_temporaries_on_interruption(_: Writers) {}

/// Prints an error on stderr; returns whether the result was Ok.
fn report(result: Result<(), models::Error>) -> bool {
    match result {
        Ok(()) => true,
        Err(e) => {
            eprintln!("error: {}", said::error_text(&e));
            false
        }
    }
}

fn detect(files: &[PathBuf], password: &pack::PasswordArg) -> bool {
    let mut ok = true;
    for path in files {
        if pack::is_pack(path) {
            if let Err(e) = pack::detect(path, password) {
                eprintln!("{}", said::error_line(&e));
                ok = false;
            }
            continue;
        }
        if pack::split_inner(path).is_some() {
            match pack::detect_entry(path, password) {
                Ok(name) => outln!("{}: {name}", said::shown(path)),
                Err(e) => {
                    eprintln!("{}", said::error_line(&e));
                    ok = false;
                }
            }
            continue;
        }
        if path.is_dir() {
            eprintln!(
                "error: {}: a folder; `models info {}` reads the models in it",
                said::shown(path),
                said::shown(path)
            );
            ok = false;
            continue;
        }
        // Only regular files are opened: a FIFO would block, a device never end.
        match models::input::read_head(path, 64) {
            Ok(head) => {
                let name = models::detect_with_hint(&head, path)
                    .map(Format::name)
                    .or_else(|| info::gltf_name(&head))
                    .unwrap_or("unknown");
                outln!("{}: {name}", said::shown(path));
            }
            Err(e) => ok &= report(Err(e)),
        }
    }
    ok
}

/// The body of [`outln!`].
pub(crate) fn write_stdout_line(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let written = out
        .write_fmt(line)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    if let Err(e) = written {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            models::output::remove_temporaries_and_exit(141);
        }
        eprintln!("error: writing to standard output: {e}");
        models::output::remove_temporaries_and_exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// Each subcommand's name, about and long about (but `help`'s, which building adds).
    fn abouts(cmd: &clap::Command) -> Vec<(String, Option<String>, Option<String>)> {
        cmd.get_subcommands()
            .filter(|c| c.get_name() != "help")
            .map(|c| {
                (
                    c.get_name().to_owned(),
                    c.get_about().map(|s| s.to_string()),
                    c.get_long_about().map(|s| s.to_string()),
                )
            })
            .collect()
    }

    /// clap's own consistency checks, deferred arguments included (`build` runs them).
    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    /// The deferred arguments are there once built, and adding them leaves each subcommand's
    /// about texts as its doc comment gives them (a flattened struct's would replace them).
    #[test]
    fn deferred_arguments_keep_the_subcommands_about() {
        let unbuilt = Cli::command();
        let convert = unbuilt.find_subcommand("convert").unwrap();
        assert_eq!(
            convert
                .get_arguments()
                .filter(|a| a.get_long() == Some("force"))
                .count(),
            0
        );
        let mut built = Cli::command();
        built.build();
        let convert = built.find_subcommand("convert").unwrap();
        assert_eq!(
            convert
                .get_arguments()
                .filter(|a| a.get_long() == Some("force"))
                .count(),
            1
        );
        let expected = abouts(&unbuilt);
        assert!(
            expected.iter().all(|(_, about, _)| about.is_some()),
            "{expected:?}"
        );
        assert_eq!(abouts(&built), expected);
        let convert_about = expected
            .iter()
            .find(|(name, ..)| name == "convert")
            .unwrap();
        assert!(convert_about.2.as_deref().unwrap().contains("Usage forms:"));
    }
}
