//! Safe output: never onto the input, never over an existing file unless forced, always
//! through a temporary file in the destination folder that is renamed into place, so a reader
//! of `path` sees either the old file or the complete new one, never a partial write.
//!
//! * **Permissions.** A new file gets the mode `0666` less the process umask, like any file a
//!   shell creates; a file replaced with [`Overwrite::Allowed`] keeps its mode (not its owner).
//! * **Interruption.** Every temporary file is kept in a process-wide registry while it
//!   exists. A program that catches SIGINT/SIGTERM/SIGHUP has the registry's temporaries
//!   removed before the process ends, in one of two ways:
//!   - *a handler thread* calls [`remove_temporaries_and_exit`] (any program, and the only way
//!     for one that writes from several threads);
//!   - *no thread*, for a program that writes from one thread: its signal handler records the
//!     signal in [`interruption_flags`] and ends the process at once while no temporary exists;
//!     otherwise this module sees the signal at its next step (every write to a temporary,
//!     every sync, every change to the registry) and then removes them and exits.
//!     A thread costs a small conversion about a tenth of its time (BENCHMARKS.md).
//! * **Several files as one** ([`write_new_files`], used for `.gltf` + `.bin`): every
//!   temporary is written and flushed first; only then are they renamed into place, in order,
//!   while holding the registry's lock (so an interruption waits for the renames). If a rename
//!   fails, the files already renamed are put back as they were (a replaced file from a hard
//!   link kept beside it, or a copy where links are not supported; a new file is removed), so
//!   the previous set is intact. Only a crash between two renames (power loss, SIGKILL) can
//!   leave the new first file beside the old later one.
//! * **Durability.** A temporary file is synced (`fsync`) before it is renamed into place,
//!   and the folder is synced after the rename, so an output is either absent or complete on
//!   disk once a write returns. Inside [`stage`], writes stop before the sync and the rename:
//!   the caller gets a [`Staged`] set and [`commit`](Staged::commit)s it later, on another
//!   thread, so that a batch's conversions do not wait on the disk (`models convert --out-dir`
//!   commits each output on one I/O thread while the others go on converting, and reports a
//!   file written only once its commit returned).

use crate::Error;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, PoisonError};

/// How [`write_new_file`] treats an existing output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Overwrite {
    /// Refuse with [`Error::OutputExists`] (the default).
    #[default]
    Never,
    /// Replace the existing file (still never the input).
    Allowed,
}

/// The temporary files of this process that exist now (see [`remove_temporaries_and_exit`]).
static LIVE: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

fn lock_live() -> MutexGuard<'static, BTreeSet<PathBuf>> {
    // A thread that panicked while holding the lock left the set consistent (every change
    // is a single insert or remove), so the poison carries no meaning here.
    LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The registry, locked. Unlocking it keeps [`InterruptionFlags::no_temporaries`] true to the
/// set, then acts on a signal recorded meanwhile (fields drop in declaration order: the lock
/// is released before `_then` acts).
struct Registry {
    guard: MutexGuard<'static, BTreeSet<PathBuf>>,
    _then: ActOnInterruption,
}

fn live() -> Registry {
    Registry {
        guard: lock_live(),
        _then: ActOnInterruption,
    }
}

impl std::ops::Deref for Registry {
    type Target = BTreeSet<PathBuf>;
    fn deref(&self) -> &Self::Target {
        &self.guard
    }
}

impl std::ops::DerefMut for Registry {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.guard
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        FLAGS
            .no_temporaries
            .store(self.guard.is_empty(), Ordering::SeqCst);
    }
}

/// Dropped after the registry's lock is released (see [`Registry`]).
struct ActOnInterruption;

impl Drop for ActOnInterruption {
    fn drop(&mut self) {
        act_on_interruption();
    }
}

/// Shared with a signal handler that runs no thread (see the module's docs): the handler
/// stores the signal's number in `pending_signal`, and ends the process itself (with 128 +
/// the number) while `no_temporaries` is true. With `signal-hook`:
///
/// ```no_run
/// # #[cfg(unix)] {
/// # use signal_hook::{consts::SIGINT, flag};
/// let flags = models::output::interruption_flags();
/// flag::register_usize(SIGINT, flags.pending_signal.clone(), SIGINT as usize)?;
/// flag::register_conditional_shutdown(SIGINT, 128 + SIGINT, flags.no_temporaries.clone())?;
/// # }
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// This module then removes the temporaries and exits with 128 + the number at its next step.
/// Only for a program that writes from one thread and does not [`stage`] its outputs: with
/// several threads, a handler could end the process between another thread's check and its
/// creating a temporary file; a staged temporary waits for its commit while nothing here runs.
#[derive(Debug, Clone)]
pub struct InterruptionFlags {
    /// True while this process has no temporary file (set before one is created).
    pub no_temporaries: Arc<AtomicBool>,
    /// The number of a signal that arrived and is not yet acted on; 0 for none.
    pub pending_signal: Arc<AtomicUsize>,
}

static FLAGS: LazyLock<InterruptionFlags> = LazyLock::new(|| InterruptionFlags {
    no_temporaries: Arc::new(AtomicBool::new(true)),
    pending_signal: Arc::new(AtomicUsize::new(0)),
});

/// The flags a thread-less signal handler shares with this module ([`InterruptionFlags`]).
pub fn interruption_flags() -> InterruptionFlags {
    FLAGS.clone()
}

/// Removes the temporaries and exits if a signal was recorded in the flags. Called where the
/// registry's lock is not held by this thread.
fn act_on_interruption() {
    let signal = FLAGS.pending_signal.load(Ordering::SeqCst);
    if signal != 0 {
        let code = i32::try_from(signal).map_or(128, |n| n.saturating_add(128));
        remove_temporaries_and_exit(code);
    }
}

/// Removes every temporary file this module has created and not yet renamed into place, then
/// ends the process with `code`. Meant for a signal-handling thread (e.g. 128 + the signal
/// number): other threads that are about to create or rename a temporary file wait on the
/// registry's lock until the process is gone, so nothing is left behind and no set of files
/// is left half-replaced.
pub fn remove_temporaries_and_exit(code: i32) -> ! {
    let registry = lock_live();
    for path in registry.iter() {
        let _ = std::fs::remove_file(path);
    }
    std::process::exit(code)
}

/// A temporary file in the registry; removed (and unregistered) when dropped unless it was
/// renamed into place. Never dropped while the registry's lock is held by the same thread.
struct Temporary {
    path: PathBuf,
    file: Option<File>,
    /// Renamed into place or removed: nothing left for `drop` to remove.
    placed: bool,
}

impl Temporary {
    /// Creates `.models-XXXXXX.tmp` in `dir`, with the mode a new file gets from the umask.
    fn new_in(dir: &Path) -> std::io::Result<Self> {
        Self::create_in(dir, &mut live())
    }

    /// [`Temporary::new_in`] for a caller that holds the registry's lock. Created and
    /// registered under the lock: an interruption sees either no file or a registered one.
    fn create_in(dir: &Path, registry: &mut BTreeSet<PathBuf>) -> std::io::Result<Self> {
        // Before the file exists: a thread-less handler must no longer end the process at once.
        FLAGS.no_temporaries.store(false, Ordering::SeqCst);
        let mut builder = tempfile::Builder::new();
        builder.prefix(".models-").suffix(".tmp");
        // tempfile creates 0600 by default; 0666 is the mode `open(2)` gets, which the kernel
        // then reduces by the umask, as for any new file.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let (file, temp_path) = builder.tempfile_in(dir)?.into_parts();
        // From here on this module removes the file, not tempfile.
        let path = temp_path.keep().map_err(|e| e.error)?;
        registry.insert(path.clone());
        Ok(Self {
            path,
            file: Some(file),
            placed: false,
        })
    }

    /// Renames the file to `target` (the caller holds the registry lock and passes it in).
    fn persist(
        &mut self,
        target: &Path,
        overwrite: Overwrite,
        registry: &mut BTreeSet<PathBuf>,
    ) -> Result<(), Error> {
        self.file = None; // closed before the rename (Windows cannot rename an open file)
        let renamed = match overwrite {
            Overwrite::Never => rename_noclobber(&self.path, target),
            Overwrite::Allowed => std::fs::rename(&self.path, target),
        };
        match renamed {
            Ok(()) => {
                self.placed = true;
                registry.remove(&self.path);
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                Err(Error::OutputExists(target.to_path_buf()))
            }
            Err(e) => Err(Error::Io(e).at(target)),
        }
    }

    /// Renames the file back over `target` (undoing a set), under the registry lock.
    fn restore(&mut self, target: &Path, registry: &mut BTreeSet<PathBuf>) {
        if std::fs::rename(&self.path, target).is_ok() {
            self.placed = true;
            registry.remove(&self.path);
        }
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if !self.placed {
            // Removed under the lock, so that it is never unregistered while still on disk.
            let mut registry = live();
            self.file = None;
            let _ = std::fs::remove_file(&self.path);
            registry.remove(&self.path);
        }
    }
}

/// Renames `from` to `to` unless `to` exists: a hard link fails atomically on an existing
/// name (then `from` is removed); where links are not supported, a check before a plain
/// rename (which leaves a small race).
fn rename_noclobber(from: &Path, to: &Path) -> std::io::Result<()> {
    match std::fs::hard_link(from, to) {
        Ok(()) => {
            let _ = std::fs::remove_file(from);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(e),
        Err(_) if to.symlink_metadata().is_ok() => {
            Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists))
        }
        Err(_) => std::fs::rename(from, to),
    }
}

/// Writes `bytes` to `path` safely.
///
/// * If `input` is given and `path` is the same file, fails with [`Error::OutputIsInput`].
/// * If `path` exists and `overwrite` is [`Overwrite::Never`], fails with
///   [`Error::OutputExists`] and leaves it untouched.
/// * Otherwise writes a temporary file beside `path`, flushes it to disk and renames it into
///   place. On any error the temporary file is removed.
///
/// ```
/// use models::output::{write_new_file, Overwrite};
/// let dir = tempfile::tempdir()?;
/// let out = dir.path().join("model.bmf");
/// write_new_file(&out, b"data", None, Overwrite::Never)?;
/// assert!(write_new_file(&out, b"other", None, Overwrite::Never).is_err());
/// assert_eq!(std::fs::read(&out)?, b"data");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_new_file(
    path: &Path,
    bytes: &[u8],
    input: Option<&Path>,
    overwrite: Overwrite,
) -> Result<(), Error> {
    write_new_files(&[(path, bytes)], input, overwrite)
}

/// Writes several files as one: either all of them are written (replaced), or none is and
/// every existing one is left as it was. The same rules as [`write_new_file`] apply to each;
/// they are renamed into place in the order given (for `.gltf` + `.bin`, give the `.bin`
/// first, so that a `.gltf` never appears before its buffer).
pub fn write_new_files(
    files: &[(&Path, &[u8])],
    input: Option<&Path>,
    overwrite: Overwrite,
) -> Result<(), Error> {
    let contents: Vec<(&Path, Content<'_>)> = files
        .iter()
        .map(|&(path, bytes)| (path, Content::Bytes(bytes)))
        .collect();
    write_new_contents(&contents, input, overwrite)
}

/// What [`write_new_contents`] writes into a file.
pub(crate) enum Content<'c> {
    /// These bytes.
    Bytes(&'c [u8]),
    /// Whatever this function writes, through a buffered writer on the temporary file: a
    /// large output (a `.glb`) is streamed into place instead of being assembled in memory.
    #[cfg_attr(not(feature = "gltf"), allow(dead_code))]
    Stream(&'c dyn Fn(&mut dyn Write) -> std::io::Result<()>),
}

/// [`write_new_files`] for contents that may be streamed.
pub(crate) fn write_new_contents(
    files: &[(&Path, Content<'_>)],
    input: Option<&Path>,
    overwrite: Overwrite,
) -> Result<(), Error> {
    for (path, _) in files {
        if let Some(input) = input {
            if same_file(input, path) {
                return Err(Error::OutputIsInput(path.to_path_buf()));
            }
        }
        if overwrite == Overwrite::Never && path.symlink_metadata().is_ok() {
            return Err(Error::OutputExists(path.to_path_buf()));
        }
    }
    let mut temporaries = Vec::with_capacity(files.len());
    for (path, content) in files {
        temporaries.push(write_temporary(path, content, overwrite)?);
    }
    let set = PendingSet {
        targets: files.iter().map(|(p, _)| p.to_path_buf()).collect(),
        temporaries,
        overwrite,
    };
    // Inside `stage`, the set waits for its commit; otherwise it is committed now.
    let unstaged = STAGE.with(|stage| match stage.borrow_mut().as_mut() {
        Some(sets) => {
            sets.push(set);
            None
        }
        None => Some(set),
    });
    match unstaged {
        Some(set) => set.commit(),
        None => Ok(()),
    }
}

/// A set of temporaries written and not yet synced nor renamed into place.
struct PendingSet {
    targets: Vec<PathBuf>,
    temporaries: Vec<Temporary>,
    overwrite: Overwrite,
}

impl PendingSet {
    /// Syncs every temporary, renames them into place in order, and syncs the folder.
    fn commit(mut self) -> Result<(), Error> {
        for (temporary, target) in self.temporaries.iter().zip(&self.targets) {
            if let Some(file) = &temporary.file {
                file.sync_all()
                    .map_err(|e| Error::Io(without_path(e)).at(target))?;
            }
            // A sync can take long on a slow disk.
            act_on_interruption();
        }
        let mut backups = Vec::with_capacity(self.targets.len());
        let placed = place_all(
            &self.targets,
            &mut self.temporaries,
            &mut backups,
            self.overwrite,
        );
        // Temporaries and backups left over are dropped (removed) here, outside the lock.
        drop(backups);
        drop(self.temporaries);
        placed?;
        if let Some(path) = self.targets.first() {
            sync_folder(path);
        }
        Ok(())
    }
}

thread_local! {
    /// The sets written on this thread inside [`stage`], in order; `None` outside it.
    static STAGE: RefCell<Option<Vec<PendingSet>>> = const { RefCell::new(None) };
}

/// Outputs written inside [`stage`]: complete temporary files beside their targets, not yet
/// synced nor renamed into place. [`commit`](Staged::commit) finishes them; dropping a
/// `Staged` removes them (and an interruption does, as for any temporary file), so nothing
/// appears under a target name that was not committed.
#[must_use = "a staged output is removed unless it is committed"]
#[derive(Default)]
pub struct Staged {
    sets: Vec<PendingSet>,
}

impl std::fmt::Debug for Staged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Staged")
            .field("targets", &self.targets().collect::<Vec<_>>())
            .finish()
    }
}

impl Staged {
    /// True when nothing was written inside the stage.
    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    /// The files the commit will place, in order.
    pub fn targets(&self) -> impl Iterator<Item = &Path> {
        self.sets
            .iter()
            .flat_map(|s| &s.targets)
            .map(PathBuf::as_path)
    }

    /// Syncs each set's temporaries to disk, renames them into place (a set as one, as
    /// [`write_new_files`] does), and syncs their folders, set by set in the order written.
    /// Stops at the first set that fails; that set's files are left as they were, and the
    /// later sets are removed.
    pub fn commit(self) -> Result<(), Error> {
        for set in self.sets {
            set.commit()?;
        }
        Ok(())
    }
}

/// Runs `f` with every [`write_new_file`] / [`write_new_files`] on this thread (directly or
/// inside a writer such as `gltf::write_file`) stopping short of the sync and the rename: each
/// returns `Ok` once its temporary file is written and its checks passed (output is not the
/// input, an existing output is refused without [`Overwrite::Allowed`]), and the sets are
/// returned, to be [`commit`](Staged::commit)ted, e.g. by an I/O thread, while this thread
/// goes on with other work. Checks that can only happen at the rename (a file created in the
/// meantime under a target name) are reported by the commit.
///
/// ```
/// use models::output::{stage, write_new_file, Overwrite};
/// let dir = tempfile::tempdir()?;
/// let out = dir.path().join("model.bmf");
/// let (written, staged) = stage(|| write_new_file(&out, b"data", None, Overwrite::Never));
/// written?;
/// assert!(!out.exists()); // not yet in place
/// std::thread::spawn(move || staged.commit()).join().unwrap()?;
/// assert_eq!(std::fs::read(&out)?, b"data");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn stage<R>(f: impl FnOnce() -> R) -> (R, Staged) {
    /// The enclosing stage (`None`: none), put back when dropped, also when `f` unwinds (the
    /// inner sets are then dropped, which removes their temporaries).
    struct Restore(Option<Option<Vec<PendingSet>>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(outer) = self.0.take() {
                let _inner = STAGE.with(|stage| std::mem::replace(&mut *stage.borrow_mut(), outer));
            }
        }
    }
    let mut restore = Restore(Some(
        STAGE.with(|stage| stage.borrow_mut().replace(Vec::new())),
    ));
    let result = f();
    let sets = match restore.0.take() {
        Some(outer) => STAGE.with(|stage| std::mem::replace(&mut *stage.borrow_mut(), outer)),
        None => None,
    };
    (
        result,
        Staged {
            sets: sets.unwrap_or_default(),
        },
    )
}

/// Renames each temporary into place, in order, under the registry lock. On a failure, puts
/// back the files already placed (from `backups`) and returns the error.
fn place_all(
    files: &[PathBuf],
    temporaries: &mut [Temporary],
    backups: &mut Vec<Option<Temporary>>,
    overwrite: Overwrite,
) -> Result<(), Error> {
    let mut registry = live();
    // Every file a rename replaces is kept until the whole set is in place. (A single file
    // needs no copy: its one rename either happens or not.)
    if overwrite == Overwrite::Allowed && files.len() > 1 {
        for path in files {
            let backup = backup_of(path, &mut registry);
            backups.push(backup.map_err(|e| Error::Io(without_path(e)).at(path))?);
        }
    }
    for (i, (path, temporary)) in files.iter().zip(temporaries.iter_mut()).enumerate() {
        if let Err(e) = temporary.persist(path, overwrite, &mut registry) {
            undo(files.get(..i).unwrap_or_default(), backups, &mut registry);
            return Err(e);
        }
    }
    Ok(())
}

/// Puts back the `placed` files of a set: the kept copy of a replaced file, or removal of a
/// new one.
fn undo(placed: &[PathBuf], backups: &mut [Option<Temporary>], registry: &mut BTreeSet<PathBuf>) {
    for (i, path) in placed.iter().enumerate().rev() {
        match backups.get_mut(i).and_then(Option::as_mut) {
            Some(b) => b.restore(path, registry),
            None => {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

/// A registered copy of the existing file `path` (a hard link, or a byte copy where links are
/// not supported), to put back if a later file of the set cannot be renamed into place.
/// `None` when `path` is not an existing plain file (a rename over a folder fails before
/// anything changes; a symbolic link is replaced by the rename, not followed).
fn backup_of(path: &Path, registry: &mut BTreeSet<PathBuf>) -> std::io::Result<Option<Temporary>> {
    match path.symlink_metadata() {
        Ok(m) if m.is_file() => {}
        Ok(_) | Err(_) => return Ok(None),
    }
    let mut backup = Temporary::create_in(folder_of(path), registry)?;
    backup.file = None;
    let linked =
        std::fs::remove_file(&backup.path).and_then(|()| std::fs::hard_link(path, &backup.path));
    if linked.is_err() {
        if let Err(e) = std::fs::copy(path, &backup.path) {
            // Removed here: dropping it would wait for the lock this thread holds.
            let _ = std::fs::remove_file(&backup.path);
            registry.remove(&backup.path);
            backup.placed = true;
            return Err(e);
        }
    }
    Ok(Some(backup))
}

/// The folder a file is written in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Writes `content` to a new temporary file beside `path` (not yet synced: see
/// [`PendingSet::commit`]); it takes the mode of `path` if that exists and may be replaced.
fn write_temporary(
    path: &Path,
    content: &Content<'_>,
    overwrite: Overwrite,
) -> Result<Temporary, Error> {
    let dir = folder_of(path);
    // Errors name the folder or the final output, which the user chose, not the temporary
    // file (which is removed on every error path).
    let temporary = Temporary::new_in(dir).map_err(|e| Error::Io(folder_error(dir, e)).at(dir))?;
    let Some(file) = temporary.file.as_ref() else {
        return Err(Error::Io(std::io::Error::other("temporary file closed")).at(path));
    };
    let io = |e: std::io::Error| Error::Io(without_path(e)).at(path);
    if overwrite == Overwrite::Allowed {
        if let Ok(existing) = std::fs::metadata(path) {
            if existing.is_file() {
                file.set_permissions(existing.permissions()).map_err(io)?;
            }
        }
    }
    let mut file = Interruptible(file);
    match content {
        Content::Bytes(bytes) => file.write_all(bytes).map_err(io)?,
        Content::Stream(write) => {
            let mut buffered = std::io::BufWriter::with_capacity(1 << 16, file);
            write(&mut buffered).map_err(io)?;
            buffered.flush().map_err(io)?;
        }
    }
    act_on_interruption();
    Ok(temporary)
}

/// A temporary file's writer that acts on a signal recorded in [`interruption_flags`] before
/// each write: a long output notices an interruption within one buffer's write.
struct Interruptible<W>(W);

impl<W: Write> Write for Interruptible<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        act_on_interruption();
        self.0.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// Makes the renames durable (best effort: not every platform can sync a folder).
fn sync_folder(path: &Path) {
    if let Ok(dir) = File::open(folder_of(path)) {
        let _ = dir.sync_all();
    }
}

/// The OS error alone: `tempfile` wraps its errors in one that adds the temporary file's path
/// (and hides the OS error code), which would repeat or contradict the path the caller reports.
/// Such an error is replaced by its kind ("permission denied"), unless the kind says nothing.
/// Why no temporary file could be made in `dir`, in the system's words where it has them.
/// tempfile wraps the system's error with the temporary's path, and [`without_path`] can keep
/// only its kind ("entity not found"); the folder's own `stat` says plainly that it does not
/// exist ("folder does not exist") or cannot be reached ("Permission denied"), and a file in
/// its place is "not a folder".
fn folder_error(dir: &Path, e: std::io::Error) -> std::io::Error {
    match std::fs::metadata(dir) {
        // Said as a folder's: a caller that words "not found" for a file keeps this text.
        Err(stat) if stat.kind() == std::io::ErrorKind::NotFound => {
            std::io::Error::new(std::io::ErrorKind::NotFound, "folder does not exist")
        }
        Err(stat) => stat,
        Ok(m) if !m.is_dir() => {
            std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a folder")
        }
        Ok(_) => without_path(e),
    }
}

fn without_path(e: std::io::Error) -> std::io::Error {
    if let Some(code) = e.raw_os_error() {
        return std::io::Error::from_raw_os_error(code);
    }
    match e.kind() {
        std::io::ErrorKind::Other => e,
        kind if e.get_ref().is_some() => std::io::Error::from(kind),
        _ => e,
    }
}

/// True when both paths name the same existing file: through `..`, symbolic links or hard
/// links. On Unix that is the same device and inode, two `stat` calls (the output is looked at
/// first: it usually does not exist yet). Comparing canonical paths, as elsewhere, costs a
/// `readlink` per component of each path and misses hard links.
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let Ok(b) = std::fs::metadata(b) else {
            return false;
        };
        std::fs::metadata(a).is_ok_and(|a| a.dev() == b.dev() && a.ino() == b.ino())
    }
    #[cfg(not(unix))]
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temporaries_in(dir: &Path) -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(".tmp"))
            .collect()
    }

    /// The same file through `..`, a symbolic link and a hard link; another file with the
    /// same content, or a path that does not exist, is not.
    #[cfg(unix)]
    #[test]
    fn same_file_follows_every_kind_of_link() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.smf");
        std::fs::write(&input, b"model").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let dotted = dir.path().join("sub").join("..").join("in.smf");
        let symlink = dir.path().join("link.smf");
        std::os::unix::fs::symlink(&input, &symlink).unwrap();
        let hard = dir.path().join("hard.smf");
        std::fs::hard_link(&input, &hard).unwrap();
        for same in [&input, &dotted, &symlink, &hard] {
            assert!(same_file(&input, same), "{}", same.display());
            assert!(same_file(same, &input), "{}", same.display());
        }
        let copy = dir.path().join("copy.smf");
        std::fs::write(&copy, b"model").unwrap();
        assert!(!same_file(&input, &copy));
        assert!(!same_file(&input, &dir.path().join("absent.smf")));
        assert!(!same_file(&dir.path().join("absent.smf"), &input));
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.bin");
        std::fs::write(&out, b"old").unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_new_file(&out, b"new", None, Overwrite::Allowed).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"new");
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }

    #[test]
    fn a_set_whose_second_rename_fails_leaves_the_first_file_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("m.bin");
        let gltf = dir.path().join("m.gltf");
        std::fs::write(&bin, b"old bin").unwrap();
        // A folder where the .gltf goes: its rename fails after the .bin's succeeded.
        std::fs::create_dir(&gltf).unwrap();
        let files: [(&Path, &[u8]); 2] = [(&bin, b"new bin"), (&gltf, b"new gltf")];
        let e = write_new_files(&files, None, Overwrite::Allowed).unwrap_err();
        assert!(e.to_string().contains("m.gltf"), "{e}");
        assert_eq!(std::fs::read(&bin).unwrap(), b"old bin");
        assert!(gltf.is_dir());
        assert!(temporaries_in(dir.path()).is_empty());

        // A new .bin is removed again.
        std::fs::remove_file(&bin).unwrap();
        assert!(write_new_files(&files, None, Overwrite::Allowed).is_err());
        assert!(!bin.exists());
        assert!(temporaries_in(dir.path()).is_empty());

        // Without the obstacle, both are written and nothing else is left.
        std::fs::remove_dir(&gltf).unwrap();
        std::fs::write(&bin, b"old bin").unwrap();
        write_new_files(&files, None, Overwrite::Allowed).unwrap();
        assert_eq!(std::fs::read(&bin).unwrap(), b"new bin");
        assert_eq!(std::fs::read(&gltf).unwrap(), b"new gltf");
        assert!(temporaries_in(dir.path()).is_empty());
    }

    #[test]
    fn never_overwrite_refuses_any_existing_file_of_a_set_before_writing() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::write(&b, b"keep").unwrap();
        let files: [(&Path, &[u8]); 2] = [(&a, b"1"), (&b, b"2")];
        let e = write_new_files(&files, None, Overwrite::Never).unwrap_err();
        assert!(matches!(e, Error::OutputExists(_)), "{e}");
        assert!(!a.exists());
        assert_eq!(std::fs::read(&b).unwrap(), b"keep");
        assert!(temporaries_in(dir.path()).is_empty());
    }
    #[test]
    fn a_staged_output_appears_only_when_committed_and_is_removed_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("a.glb");
        let (written, staged) = stage(|| write_new_file(&out, b"a", None, Overwrite::Never));
        written.unwrap();
        assert!(!out.exists());
        assert_eq!(temporaries_in(dir.path()).len(), 1);
        assert_eq!(staged.targets().collect::<Vec<_>>(), [out.as_path()]);
        drop(staged);
        assert!(!out.exists());
        assert!(temporaries_in(dir.path()).is_empty());

        let (written, staged) = stage(|| write_new_file(&out, b"b", None, Overwrite::Never));
        written.unwrap();
        staged.commit().unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"b");
        assert!(temporaries_in(dir.path()).is_empty());
        // Outside a stage, writes commit at once again.
        let other = dir.path().join("b.glb");
        write_new_file(&other, b"c", None, Overwrite::Never).unwrap();
        assert_eq!(std::fs::read(&other).unwrap(), b"c");
    }

    #[test]
    fn a_commit_refuses_a_file_created_under_its_name_after_the_stage() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("a.glb");
        let (written, staged) = stage(|| write_new_file(&out, b"new", None, Overwrite::Never));
        written.unwrap();
        std::fs::write(&out, b"someone else's").unwrap();
        let e = staged.commit().unwrap_err();
        assert!(matches!(e, Error::OutputExists(_)), "{e}");
        assert_eq!(std::fs::read(&out).unwrap(), b"someone else's");
        assert!(temporaries_in(dir.path()).is_empty());
    }

    #[test]
    fn stages_nest_and_an_inner_stage_keeps_its_own_sets() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        let ((inner, written_b), outer) = stage(|| {
            write_new_file(&a, b"a", None, Overwrite::Never).unwrap();
            let (written_b, inner) = stage(|| write_new_file(&b, b"b", None, Overwrite::Never));
            (inner, written_b)
        });
        written_b.unwrap();
        assert_eq!(outer.targets().collect::<Vec<_>>(), [a.as_path()]);
        assert_eq!(inner.targets().collect::<Vec<_>>(), [b.as_path()]);
        inner.commit().unwrap();
        outer.commit().unwrap();
        assert!(a.exists() && b.exists());
    }
}
